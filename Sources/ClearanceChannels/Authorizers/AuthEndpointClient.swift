import Clearance
import ClearanceHTTP
import ClearanceWire
import Foundation
import HTTPTypes

/// POSTs a form to an auth endpoint through `AuthorizedClient`, with the app's headers, header
/// providers, request hook and credential; returns the answer, or a ``ChannelAuthorizationError``
/// saying exactly what happened. The deadline is the caller's (the channel client's
/// ``ChannelClientOptions/authorizationTimeout``).
struct AuthEndpointClient: Sendable {
    let endpoint: URL
    let parameters: [(String, String)]
    let headers: HTTPFields
    let headerProviders: [ServerChannelAuthorizer.HeaderProvider]
    let client: AuthorizedClient

    /// Sends `fields` (plus the app's parameters) and returns what the endpoint answered.
    func post(_ fields: [(String, String)]) async throws(ChannelAuthorizationError) -> AuthEndpointAnswer {
        var request = HTTPRequest(method: .post, url: endpoint)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.accept] = "application/json"
        if !headers.isEmpty || !headerProviders.isEmpty || !parameters.isEmpty {
            // The app's headers and parameters are as secret as a credential: same rule.
            do { try client.authorizer.transportSecurity.check(request) } catch { throw .credential(error) }
        }
        for field in headers { request.headerFields.append(field) }
        for provider in headerProviders {
            let provided: HTTPFields
            do {
                provided = try await provider()
            } catch {
                if error is CancellationError { throw .cancelled }
                throw .credential(.missingCredential(source: "header provider", underlying: error))
            }
            for field in provided { request.headerFields[field.name] = field.value }
        }
        // Every name and value percent-encoded (libPusher sent channel names raw).
        let body = Data(FormFields.encode((fields + parameters).map { (name: $0.0, value: $0.1) }, style: .rfc3986).utf8)
        do {
            let (response, data) = try await client.send(request, body: body)
            return AuthEndpointAnswer(status: response.status.code, body: data) { HTTPErrorResponse(response, body: data) }
        } catch {
            throw ChannelAuthorizationError(error)
        }
    }
}

extension AuthEndpointClient: SecretRedacting {
    /// The endpoint (without its query) and the names of the headers and parameters.
    var description: String {
        let headerNames = headers.map(\.name.canonicalName) + (headerProviders.isEmpty ? [] : ["(\(headerProviders.count) providers)"])
        return "endpoint: \(Redactor.stripQueries(endpoint.absoluteString)), headers: [\(headerNames.joined(separator: ", "))], parameters: [\(parameters.map(\.0).joined(separator: ", "))]"
    }
}
