import Clearance
import ClearanceHTTP
import Foundation
import HTTPTypes

/// Asks the app's user-auth endpoint: `POST` form `socket_id` (plus the app's parameters), reads
/// `{"auth":…,"user_data":…}`. Same request machinery, hooks, credentials and errors as
/// ``ServerChannelAuthorizer``.
public struct ServerUserAuthenticator: UserAuthenticator {
    let client: AuthEndpointClient

    /// Creates a user authenticator with the same options as ``ServerChannelAuthorizer``.
    public init(
        endpoint: URL,
        parameters: [(String, String)] = [],
        headers: HTTPFields = [:],
        headerProviders: [ServerChannelAuthorizer.HeaderProvider] = [],
        credentialSource: (any CredentialSource)? = nil,
        transportSecurity: TransportSecurity = .strict,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        willSend: AuthorizedClient.RequestHook? = nil
    ) throws(ChannelAuthorizationError) {
        let channel = try ServerChannelAuthorizer(
            endpoint: endpoint, parameters: parameters, headers: headers, headerProviders: headerProviders,
            credentialSource: credentialSource, transportSecurity: transportSecurity, transport: transport,
            willSend: willSend
        )
        client = channel.client
    }

    public func authenticate(socketID: String) async throws(ChannelAuthorizationError) -> UserAuthentication {
        try AuthEndpointResponse.userAuthentication(try await client.post([("socket_id", socketID)]))
    }
}

extension ServerUserAuthenticator: SecretRedacting {
    /// The endpoint and the names of the headers and parameters: never their values.
    public var description: String { "ServerUserAuthenticator(\(client))" }
}
