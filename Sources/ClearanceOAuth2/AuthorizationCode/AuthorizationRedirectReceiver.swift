import Foundation

/// Receives the browser's redirect back to the app at the end of an authorization request:
/// a loopback HTTP listener for command-line and desktop apps (RFC 8252 §7.3), a custom URL
/// scheme or universal link handler on iOS.
///
/// ClearanceServer's `LoopbackRedirectListener` is a ready one for 127.0.0.1; the OAuth2
/// module itself depends on no server.
public protocol AuthorizationRedirectReceiver: Sendable {
    /// The redirect URI to send in the authorization request.
    var redirectURI: URL { get }
    /// Waits for the redirect and returns the full URL the browser requested (with its query).
    /// Must stop waiting when the task is cancelled.
    func receiveRedirect() async throws -> URL
    /// Waits for the redirect whose `state` query parameter is `state`. A receiver that can tell
    /// redirects apart ignores the others (a forged or stale redirect must not end the sign-in);
    /// by default, the first redirect (the flow then checks its `state` itself).
    func receiveRedirect(state: String) async throws -> URL
    /// The redirect whose `state` is `state` when it has already arrived (taken, as
    /// ``receiveRedirect(state:)`` would take it), without waiting; nil when it has not. The flow
    /// asks first, so that a redirect already there is never raced against the sign-in's
    /// deadline (a scripted browser is done before the flow waits). By default nil.
    func takeArrivedRedirect(state: String) -> URL?
}

extension AuthorizationRedirectReceiver {
    public func receiveRedirect(state: String) async throws -> URL { try await receiveRedirect() }
    public func takeArrivedRedirect(state: String) -> URL? { nil }
}
