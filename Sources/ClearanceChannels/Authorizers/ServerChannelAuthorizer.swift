import Clearance
import ClearanceHTTP
import Foundation
import HTTPTypes

/// Asks the app's server: `POST` `socket_id` and `channel_name` (percent-encoded, plus the app's
/// parameters) as a form to ``endpoint``, and reads `{"auth":…,"channel_data"?,"shared_secret"?}`.
///
/// The request goes through Clearance's `AuthorizedClient`, so its credential can come from any
/// `CredentialSource` (an OAuth2 session, a `CachingCredentialSource`, …): an expired bearer is
/// refreshed once on a 401 and the request retried once, rather than breaking channel auth after
/// the device slept (pusher-js #190, #752). Before sending, ``HeaderProvider``s are awaited (to
/// fetch or refresh a token) and the request hook may change anything (libPusher's
/// `willAuthorizeChannel:withAuthOperation:`).
///
/// Nothing secret travels where it should not: when the request carries anything beyond the
/// socket id and channel name (a credential, fixed headers, header providers, parameters), plain
/// `http` is refused unless the endpoint is loopback or `TransportSecurity` allows its host; a
/// redirect to another origin is never followed (its 3xx is a
/// ``ChannelAuthorizationError/httpStatus(_:)``), so neither the form nor the headers go there.
///
/// Each failure is its own ``ChannelAuthorizationError``: a status other than 200/201, an empty,
/// non-JSON or non-object body, a body without `auth`, a transport error; the answer is kept.
/// The deadline is the channel client's (``ChannelClientOptions/authorizationTimeout``), the
/// one deadline on the authorization path.
public struct ServerChannelAuthorizer: ChannelAuthorizer {
    /// Supplies header fields for each auth request, awaited just before it is sent.
    public typealias HeaderProvider = @Sendable () async throws -> HTTPFields

    /// The auth endpoint, e.g. `https://example.com/pusher/auth`.
    public var endpoint: URL { client.endpoint }
    let client: AuthEndpointClient

    /// Creates a server-based authorizer.
    ///
    /// - Parameters:
    ///   - endpoint: The auth URL.
    ///   - parameters: Extra form fields sent with every request (the app's `params`).
    ///   - headers: Fixed header fields sent with every request.
    ///   - headerProviders: Async suppliers of header fields, awaited for every request.
    ///   - credentialSource: A credential to put on every request (refreshed once on a 401 when
    ///     the source can refresh), or nil.
    ///   - transportSecurity: Where that credential, the headers and the parameters may go;
    ///     loopback or `https` by default (opt in to a plain-HTTP host with
    ///     `TransportSecurity(insecureHostsAllowed:)`).
    ///   - transport: The HTTP transport; the shared AsyncHTTPClient one by default.
    ///   - willSend: The request hook: adjust each request just before it is sent.
    /// - Throws: ``ChannelAuthorizationError/misconfigured(reason:)`` when the endpoint is not an
    ///   absolute `http`/`https` URL.
    public init(
        endpoint: URL,
        parameters: [(String, String)] = [],
        headers: HTTPFields = [:],
        headerProviders: [HeaderProvider] = [],
        credentialSource: (any CredentialSource)? = nil,
        transportSecurity: TransportSecurity = .strict,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        willSend: AuthorizedClient.RequestHook? = nil
    ) throws(ChannelAuthorizationError) {
        let authorizer: RequestAuthorizer
        do {
            if let credentialSource {
                authorizer = try RequestAuthorizer(policy: .always("channel-auth"), sources: ["channel-auth": credentialSource], transportSecurity: transportSecurity)
            } else {
                authorizer = try RequestAuthorizer(policy: AuthorizationPolicy(), sources: [:], transportSecurity: transportSecurity)
            }
        } catch {
            throw .misconfigured(reason: error.message)
        }
        try self.init(endpoint: endpoint, parameters: parameters, headers: headers, headerProviders: headerProviders,
                      requestAuthorizer: authorizer, transport: transport, willSend: willSend)
    }

    /// Creates a server-based authorizer whose requests follow a full Clearance
    /// `RequestAuthorizer` (policy, named credential sources, transport security).
    public init(
        endpoint: URL,
        parameters: [(String, String)] = [],
        headers: HTTPFields = [:],
        headerProviders: [HeaderProvider] = [],
        requestAuthorizer: RequestAuthorizer,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        willSend: AuthorizedClient.RequestHook? = nil
    ) throws(ChannelAuthorizationError) {
        guard let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https", endpoint.host != nil else {
            throw .misconfigured(reason: "the auth endpoint must be an absolute http or https URL")
        }
        client = AuthEndpointClient(
            endpoint: endpoint, parameters: parameters, headers: headers, headerProviders: headerProviders,
            client: AuthorizedClient(authorizer: requestAuthorizer, transport: transport, followsCrossOriginRedirects: false, willSend: willSend)
        )
    }

    public func authorize(socketID: String, channelName: String) async throws(ChannelAuthorizationError) -> ChannelAuthorization {
        try AuthEndpointResponse.channelAuthorization(try await client.post([("socket_id", socketID), ("channel_name", channelName)]))
    }

    /// Authorizes several channels in one request (pusher-js-auth's batched format).
    ///
    /// - Returns: one result per channel; a channel the server left out is a 404.
    /// - Throws: when the request as a whole failed (transport, timeout, status, body).
    public func authorizeBatch(socketID: String, channelNames: [String]) async throws(ChannelAuthorizationError) -> [String: Result<ChannelAuthorization, ChannelAuthorizationError>] {
        var fields = [("socket_id", socketID)]
        for (index, name) in channelNames.enumerated() { fields.append(("channel_name[\(index)]", name)) }
        return try AuthEndpointResponse.batch(try await client.post(fields), channels: channelNames)
    }
}

extension ServerChannelAuthorizer: SecretRedacting {
    /// The endpoint and the names of the headers and parameters: never their values.
    public var description: String { "ServerChannelAuthorizer(\(client))" }
}
