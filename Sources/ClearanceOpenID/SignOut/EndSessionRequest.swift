import Clearance
import ClearanceWire
import Foundation

/// The URL that ends the user's session at the provider (OpenID Connect RP-Initiated Logout
/// 1.0 §2): the `end_session_endpoint` with `id_token_hint`, `client_id`, and
/// `post_logout_redirect_uri` and `state` when given.
///
/// The URL carries the ID token (as `id_token_hint`, by design): open it, do not log it. The
/// request's `description` shows the endpoint only.
public struct EndSessionRequest: Sendable, Hashable {
    /// The provider's `end_session_endpoint`.
    public let endpoint: URL
    /// The URL to open in the browser.
    public let url: URL

    /// - Parameters:
    ///   - endpoint: The provider's `end_session_endpoint`.
    ///   - idTokenHint: The session's raw ID token (recommended: the provider then knows whose session ends).
    ///   - clientID: The client id.
    ///   - postLogoutRedirectURI: Where the provider sends the browser afterwards (registered with it).
    ///   - state: Echoed to `postLogoutRedirectURI`.
    public init(endpoint: URL, idTokenHint: String?, clientID: String, postLogoutRedirectURI: URL? = nil, state: String? = nil) {
        var parameters: [(name: String, value: String)] = []
        if let idTokenHint { parameters.append(("id_token_hint", idTokenHint)) }
        parameters.append(("client_id", clientID))
        if let postLogoutRedirectURI { parameters.append(("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString)) }
        if let state { parameters.append(("state", state)) }
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) ?? URLComponents()
        let existing = components.percentEncodedQuery.map { $0.isEmpty ? [] : [$0] } ?? []
        components.percentEncodedQuery = (existing + [FormFields.encode(parameters, style: .rfc3986)]).joined(separator: "&")
        self.endpoint = endpoint
        self.url = components.url ?? endpoint
    }
}

extension EndSessionRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "EndSessionRequest(\(Redactor.stripQueries(endpoint.absoluteString)), id_token_hint: \(Redactor.mask))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["endpoint": Redactor.stripQueries(endpoint.absoluteString)], displayStyle: .struct) }
}
