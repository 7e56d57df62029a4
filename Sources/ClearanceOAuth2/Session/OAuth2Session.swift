import Clearance
import Foundation
import Logging

/// An OAuth 2.0 session: signs in with a grant, keeps the token fresh, stores it, and is a
/// Clearance credential source, so `AuthorizedClient` and the channel authorizers use it directly.
///
/// - **Sign-in**: ``signIn(with:)`` with any ``OAuth2Grant`` (password, client credentials,
///   PodioKit's `app` grant, authorization code with PKCE, device flow), or automatically on the
///   first request that needs a token (``OAuth2SessionConfiguration/automaticSignIn``).
///   Concurrent requests share that one sign-in and, on failure, all get the same error.
/// - **Refresh**: proactively within the leeway before expiry (expiry = arrival time +
///   `expires_in`, on the monotonic clock), and reactively when `AuthorizedClient` reports a 401
///   through ``refreshCredential(after:)``. One refresh at a time, shared by every waiter
///   (`SingleFlight`). The old refresh token is kept when none is returned; a rotated one is
///   saved to the store *before* the new access token is used. At most 5 automatic token
///   requests in 30 s (``RefreshWindow``); failures that keep the session back off
///   (``RefreshBackoff``). `invalid_grant` ends the session: signed out, event, store cleared.
/// - **State**: ``state``, ``isAuthenticated``, ``states`` and a `NotificationCenter` post named
///   ``stateDidChangeNotification`` on every change; ``events`` for what happened.
/// - **Storage**: restores itself from the store on first use (or ``restore()``); a store that
///   cannot be read starts it signed out with ``OAuth2SessionEvent/storeUnreadable(_:)``. Every
///   save records who issued the session (``SessionProvenance``); a store issued by another
///   token endpoint, client or issuer is refused (``OAuth2Error/storedSessionMismatch(member:stored:configured:)``,
///   ``OAuth2SessionEvent/storeRefused(_:)``): nothing is sent and the store is left as it is.
/// - **Deadlines**: every request ends by the transport's deadline (60 s for head and body by
///   default; ``OAuth2SessionConfiguration/transport`` with `withTimeout(_:)` changes it), else
///   fails with ``OAuth2Error/requestTimedOut(_:)`` naming the endpoint.
/// - **Identity**: with an ``OAuth2SessionConfiguration/identityVerifier`` (OpenID Connect),
///   every token response is verified before it is used or stored: a refused sign-in stores
///   nothing, a refused refresh ends the session (either revokes the tokens it discards); a
///   refresh whose identity cannot be verified yet keeps its tokens and the identity verified
///   before, and verifies the new ID token at the next refresh. ``identity`` is who signed in.
/// - **Sign-out**: ``signOut()`` revokes the refresh token (RFC 7009) when there is a revocation
///   endpoint, then clears the store; it signs out even when revocation fails.
///
/// Nothing it logs, throws or describes contains a token, secret, code or verifier.
public final class OAuth2Session: RefreshableCredentialSource {
    /// The name of the notification posted on every state change; `object` is the session and
    /// `userInfo[OAuth2Session.stateKey]` the new ``OAuth2SessionState``.
    public static let stateDidChangeNotification = Notification.Name("ClearanceOAuth2SessionStateDidChange")
    /// The `userInfo` key of ``stateDidChangeNotification`` holding the state.
    public static let stateKey = "state"

    /// The configuration.
    public let configuration: OAuth2SessionConfiguration
    /// The authorization server the session talks to.
    public let server: AuthorizationServer

    let core: Locked<SessionCore>
    let tokenFlight = SingleFlight<OAuth2Token>()
    let restoreFlight = SingleFlight<Bool>()
    let commits = CommitQueue()
    let stateBroadcaster = Broadcaster<OAuth2SessionState>(replaying: .signedOut)
    let eventBroadcaster = Broadcaster<OAuth2SessionEvent>()
    var logger: Logger { configuration.logger }
    var clock: any OAuth2Clock { configuration.clock }

    /// Creates the session. It reads its store on first use, or when ``restore()`` is called
    /// (call it at launch to know at once whether the user is signed in).
    public init(configuration: OAuth2SessionConfiguration) {
        self.configuration = configuration
        self.server = configuration.server
        self.core = Locked(SessionCore(window: configuration.refreshWindow, backoff: configuration.backoff))
    }

    /// The name used in errors, events and logs.
    public var name: String { configuration.name }

    /// The current state (``OAuth2SessionState/signedOut`` until the store has been read).
    public var state: OAuth2SessionState { core.withLock { $0.state } }

    /// True while the session holds a token.
    public var isAuthenticated: Bool { core.withLock { $0.active != nil } }

    /// What may be known about the current token: never the token.
    public var tokenInfo: TokenInfo? { core.withLock { $0.active?.token.info } }

    /// Who signed in, as the ``OAuth2SessionConfiguration/identityVerifier`` verified it (with
    /// OpenID Connect: the ID token's claims); nil when signed out or without a verifier.
    public var identity: SessionIdentity? { core.withLock { $0.active?.identity } }

    /// The state, starting with the current one, then every change.
    public var states: AsyncStream<OAuth2SessionState> { stateBroadcaster.subscribe() }

    /// Every event from now on.
    public var events: AsyncStream<OAuth2SessionEvent> { eventBroadcaster.subscribe() }

    // MARK: - CredentialSource

    /// The credential for the next request: the access token under the configured scheme.
    /// Signs in automatically or refreshes first when needed.
    /// - Throws: `AuthorizationError` whose underlying error is the ``OAuth2Error``.
    public func credential() async throws(AuthorizationError) -> Credential {
        do {
            return try await currentCredential()
        } catch {
            throw error.authorizationError(source: name)
        }
    }

    /// Replaces `rejected` if it is still the current credential (one refresh shared by every
    /// caller) and returns the new one; returns the current one at once when it is newer.
    public func refreshCredential(after rejected: Credential) async throws(AuthorizationError) -> Credential {
        await ensureRestored()
        let rejectedNow = core.withLock { core -> Bool in
            guard let active = core.active, !active.rejected, makeCredential(active.token) == rejected else { return false }
            core.active?.rejected = true
            return true
        }
        if rejectedNow {
            logger.debug("access token refused by the server; renewing", metadata: ["session": "\(name)"])
        }
        return try await credential()
    }

    /// Marks the current token as unusable: the next request renews it.
    public func invalidate() {
        let had = core.withLock { core -> Bool in
            guard core.active != nil else { return false }
            core.active?.rejected = true
            return true
        }
        if had { configuration.authorizationEvents?.post(.invalidated(source: name)) }
    }

    // MARK: - Typed API

    /// The credential for the next request, with the typed error.
    public func currentCredential() async throws(OAuth2Error) -> Credential {
        makeCredential(try await validToken())
    }

    /// Renews the token now (refresh token, else automatic sign-in), even if it is still fresh.
    ///
    /// - Throws: The renewal's ``OAuth2Error``; or ``OAuth2Error/identityUnavailable(_:)`` when
    ///   the tokens were renewed and saved but the ID token that came with them could not be
    ///   verified yet (its provider's keys unreachable): the session goes on with the identity
    ///   verified before and verifies the new one at the next refresh.
    @discardableResult
    public func refresh() async throws(OAuth2Error) -> TokenInfo {
        await ensureRestored()
        core.withLock { $0.active?.rejected = true }
        let token = try await validToken()
        let unverified = core.withLock { core -> OAuth2Error? in
            guard let active = core.active, active.token.accessToken == token.accessToken, active.pendingIDToken != nil else { return nil }
            return active.pendingReason
        }
        if let unverified { throw unverified }
        return token.info
    }

    /// Signs in with `grant`, replacing any current session. The new token (and the identity the
    /// ``OAuth2SessionConfiguration/identityVerifier`` established) is saved to the store before
    /// it is used. The session it replaces is signed out at its own server: its refresh token is
    /// revoked at the configured revocation endpoint, or, for a stored session of another server
    /// or client that was refused, at the revocation endpoint it recorded (if it did); never
    /// elsewhere.
    /// - Throws: The grant's ``OAuth2Error``, or the verifier's refusal
    ///   (``OAuth2Error/identityRefused(_:)``); nothing is stored then (tokens obtained for an
    ///   identity that was not accepted are revoked, when there is a revocation endpoint), and
    ///   the previous session, if any, is kept.
    @discardableResult
    public func signIn(with grant: some OAuth2Grant) async throws(OAuth2Error) -> TokenInfo {
        await ensureRestored()
        let (earlier, foreign) = update { core in
            core.state = .authenticating
            return (core.active?.token, core.refusedStore?.stored)
        }
        logger.debug("signing in", metadata: ["session": "\(name)", "grant": "\(grant.grantName)"])
        let response: TokenResponse
        let identity: SessionIdentity?
        do {
            response = try await grant.requestToken(from: server)
        } catch {
            throw signInFailed(error, grant: grant.grantName)
        }
        do {
            identity = try await verifyIdentity(in: response, for: .signIn(grant: grant.grantName))
        } catch {
            // Discarded: none of its tokens may stay valid with nobody holding it.
            await revokeDiscarded(response)
            throw signInFailed(error, grant: grant.grantName)
        }
        let token = response.token(receivedAt: clock.now)
        // An explicit sign-in is never superseded (it expects no generation).
        let published = await commit(token, identity: identity, receivedAt: clock.uptime, expectedGeneration: nil) ?? token
        logger.info("signed in", metadata: ["session": "\(name)", "grant": "\(grant.grantName)", "expires_in": "\(response.expiresIn.map { OAuth2Error.seconds($0) } ?? "unknown")"])
        await revokeReplaced(earlier, foreign: foreign, keeping: published)
        emit(.signedIn(published.info, grant: grant.grantName))
        return published.info
    }

    /// After a sign-in: revokes the refresh token of the session it replaced, at that session's
    /// own server (best effort, logged). A session of this configuration is revoked at the
    /// configured endpoint; a refused stored session of another server or client only at the
    /// revocation endpoint it recorded, with the client it recorded.
    private func revokeReplaced(_ earlier: OAuth2Token?, foreign: StoredSession?, keeping current: OAuth2Token) async {
        if let refreshToken = earlier?.refreshToken, refreshToken != current.refreshToken {
            await revokeDiscarded(refreshToken)
        }
        guard let foreign, let refreshToken = foreign.token.refreshToken, let endpoints = foreign.endpoints,
              endpoints.revocation != nil, let client = foreign.client
        else { return }
        let server = AuthorizationServer(
            endpoints: endpoints, client: client, transport: configuration.transport, transportSecurity: configuration.transportSecurity,
            clock: clock, logger: logger)
        do {
            try await server.revoke(refreshToken, hint: "refresh_token")
            logger.debug("revoked the replaced session of another server at its own server", metadata: ["session": "\(name)"])
        } catch {
            logger.warning("revoking the replaced session at its own server failed", metadata: ["session": "\(name)", "code": "\(error.qualifiedCode)"])
        }
    }

    /// A failed explicit sign-in: the state goes back to what it was (or failed), reported.
    private func signInFailed(_ error: OAuth2Error, grant: String) -> OAuth2Error {
        let cancelled = error.code == .cancelled
        update { core in
            core.state = core.active.map { .authenticated($0.token.info) } ?? (cancelled ? .signedOut : .failed(error))
        }
        if !cancelled {
            logger.warning("sign-in failed", metadata: ["session": "\(name)", "grant": "\(grant)", "code": "\(error.qualifiedCode)"])
            emit(.signInFailed(error, grant: grant))
        }
        return error
    }

    /// Signs out: drops the token at once, revokes the refresh token (or the access token when
    /// there is none) if a revocation endpoint is configured, then clears the store. Signs out
    /// even when revocation fails; the outcome says what happened at the server.
    @discardableResult
    public func signOut() async -> RevocationOutcome {
        await ensureRestored()
        let (dropped, foreignOnly) = update { core -> (OAuth2Token?, Bool) in
            let token = core.active?.token
            // A refused store of another server or client is not this session's to clear.
            let foreignOnly = token == nil && core.refusedStore != nil
            core.active = nil
            core.generation += 1
            core.window.reset()
            core.backoff.recordSuccess()
            core.state = .signedOut
            return (token, foreignOnly)
        }
        let outcome = await revoke(dropped)
        if !foreignOnly { await commits.run { [self] in await clearStore() } }
        logger.info("signed out", metadata: ["session": "\(name)", "revocation": "\(outcome)"])
        emit(.signedOut(outcome))
        configuration.authorizationEvents?.post(.invalidated(source: name))
        return outcome
    }

    private func revoke(_ token: OAuth2Token?) async -> RevocationOutcome {
        guard configuration.endpoints.revocation != nil else { return .notConfigured }
        guard let token else { return .nothingToRevoke }
        let (value, hint) = token.refreshToken.map { ($0, "refresh_token") } ?? (token.accessToken, "access_token")
        do {
            try await server.revoke(value, hint: hint)
            return .revoked(tokenTypeHint: hint)
        } catch {
            logger.warning("revocation failed; signing out anyway", metadata: ["session": "\(name)", "code": "\(error.qualifiedCode)"])
            return .failed(error)
        }
    }

    // MARK: - Shared helpers

    func makeCredential(_ token: OAuth2Token) -> Credential {
        .accessToken(token.accessToken, scheme: configuration.headerScheme, expiresAt: token.expiresAt)
    }

    /// Mutates the core under the lock, publishes the state to the stream if it changed (in
    /// order, under the lock), then posts the notification outside it.
    @discardableResult
    func update<T: Sendable>(_ body: (inout SessionCore) -> T) -> T {
        let (result, changed) = core.withLock { core -> (T, OAuth2SessionState?) in
            let before = core.state
            let result = body(&core)
            guard !core.state.isSame(as: before) else { return (result, nil) }
            stateBroadcaster.send(core.state)
            return (result, core.state)
        }
        if let changed {
            configuration.notificationCenter?.post(name: Self.stateDidChangeNotification, object: self, userInfo: [Self.stateKey: changed])
        }
        return result
    }

    func emit(_ event: OAuth2SessionEvent) {
        eventBroadcaster.send(event)
        guard let events = configuration.authorizationEvents else { return }
        switch event {
        case .signedIn(let info, _), .refreshed(let info), .restored(let info):
            events.post(.refreshed(source: name, expiresAt: info.expiresAt))
        case .sessionEnded:
            events.post(.invalidated(source: name))
        case .signInFailed(let error, _), .refreshFailed(let error), .storeRefused(let error):
            events.post(.failed(source: name, error: error.authorizationError(source: name)))
        case .storeUnreadable(let error), .storeWriteFailed(let error):
            events.post(.failed(source: name, error: .unavailable(reason: error.message, underlying: error)))
        case .signedOut:
            break
        }
    }

    /// The identity `response` carries, as the configured verifier decides (nil without one at
    /// sign-in; the current one, unchanged, at a refresh without one).
    func verifyIdentity(in response: TokenResponse, for check: IdentityCheck) async throws(OAuth2Error) -> SessionIdentity? {
        guard let verifier = configuration.identityVerifier else {
            if case .refresh(let current) = check { return current }
            return nil
        }
        do {
            return try await verifier.verifyIdentity(in: response, for: check)
        } catch {
            logger.warning("the identity in the token response was not accepted", metadata: [
                "session": "\(name)", "code": "\(error.qualifiedCode)",
                "reason": "\(error.identityError?.qualifiedCode ?? error.qualifiedCode)",
            ])
            throw error
        }
    }
}

extension OAuth2Session: SecretRedacting {
    /// The name and the state (token type, scopes, expiry): never a token, nor the client secret.
    public var description: String { "OAuth2Session(\(name), \(state))" }
}
