import Foundation

/// The whole authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636) as one grant: builds
/// the authorization URL with a fresh `state` and verifier, hands it to ``openURL`` (open a
/// browser, print it), waits for the redirect on ``receiver``, checks `state`, and exchanges
/// the code.
public struct AuthorizationCodeFlow: OAuth2Grant {
    /// Where the browser comes back to.
    public var receiver: any AuthorizationRedirectReceiver
    /// The scopes to ask for; `nil` uses the session's.
    public var scopes: [String]?
    /// Extra authorization request parameters (`prompt`, `login_hint`, …).
    public var additionalParameters: [(name: String, value: String)]
    /// How long to wait for the user.
    public var timeout: Duration
    /// Shows the authorization URL to the user.
    public var openURL: @Sendable (URL) async throws -> Void

    public init(
        receiver: any AuthorizationRedirectReceiver,
        scopes: [String]? = nil,
        additionalParameters: [(name: String, value: String)] = [],
        timeout: Duration = .seconds(300),
        openURL: @escaping @Sendable (URL) async throws -> Void
    ) {
        self.receiver = receiver
        self.scopes = scopes
        self.additionalParameters = additionalParameters
        self.timeout = timeout
        self.openURL = openURL
    }

    public var grantName: String { "authorization_code" }

    public func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        guard let endpoint = server.endpoints.authorization else {
            throw .misconfigured(reason: "the authorization code grant needs an authorization endpoint")
        }
        let request = try AuthorizationRequest(
            authorizationEndpoint: endpoint, clientID: server.client.id, redirectURI: receiver.redirectURI,
            scopes: scopes ?? server.scopes, additionalParameters: additionalParameters)
        server.logger.debug("authorization request ready", metadata: ["redirect_uri": "\(request.redirectURI)"])
        do {
            try await openURL(request.url)
        } catch {
            if error is CancellationError || Task.isCancelled { throw .cancelled }
            throw .misconfigured(reason: "the authorization URL could not be opened: \(error)")
        }
        let redirect = try await waitForRedirect(state: request.state, clock: server.clock)
        let grant = try request.grant(forRedirect: redirect)
        server.logger.debug("authorization code received; exchanging it")
        return try await grant.requestToken(from: server)
    }

    private func waitForRedirect(state: String, clock: any OAuth2Clock) async throws(OAuth2Error) -> URL {
        let receiver = self.receiver
        let timeout = self.timeout
        if let arrived = receiver.takeArrivedRedirect(state: state) { return arrived }
        do {
            return try await withThrowingTaskGroup(of: URL?.self) { group in
                group.addTask { try await receiver.receiveRedirect(state: state) }
                group.addTask {
                    try await clock.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let url = first else {
                    throw OAuth2Error.timedOut(reason: "no authorization redirect arrived within \(OAuth2Error.seconds(timeout))")
                }
                return url
            }
        } catch let error as OAuth2Error {
            throw error
        } catch {
            if error is CancellationError || Task.isCancelled { throw .cancelled }
            throw .invalidRedirect(reason: "the redirect listener failed: \(error)")
        }
    }
}
