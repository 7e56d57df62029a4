import Clearance
import Foundation
import Logging

extension OAuth2Session {
    /// A token good for the next request: the current one, or a renewed one through the one
    /// shared renewal (``SingleFlight``).
    func validToken() async throws(OAuth2Error) -> OAuth2Token {
        await ensureRestored()
        if Task.isCancelled { throw .cancelled }
        let canSignIn = configuration.automaticSignIn != nil
        let now = clock.uptime
        let (next, generation) = core.withLock { ($0.next(now: now, leeway: configuration.leeway, canSignIn: canSignIn), $0.generation) }
        if let token = try await token(from: next, generation: generation) { return token }
        do {
            return try await tokenFlight.run { [self] in try await renew() }
        } catch let error as OAuth2Error {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// The token a decision gives, or nil when it asks for a renewal; a failure is thrown
    /// (ending the session first when it must).
    private func token(from next: SessionCore.Next, generation: UInt64) async throws(OAuth2Error) -> OAuth2Token? {
        switch next {
        case .use(let token):
            return token
        case .fail(let error, let endsSession):
            if endsSession { await endSession(because: error, expectedGeneration: generation) }
            throw error
        case .renew:
            return nil
        }
    }

    /// The one renewal in flight: decides again (a renewal may have just finished), checks the
    /// window and the backoff, then refreshes or signs in automatically.
    private func renew() async throws(OAuth2Error) -> OAuth2Token {
        let canSignIn = configuration.automaticSignIn != nil
        var allowSignInAfterEnd = true
        while true {
            let now = clock.uptime
            let (next, blocked, generation, current) = core.withLock { core in
                (core.next(now: now, leeway: configuration.leeway, canSignIn: canSignIn), core.gate(now: now), core.generation, core.active)
            }
            if let token = try await token(from: next, generation: generation) { return token }
            guard case .renew(let renewal) = next else { continue }
            if let blocked {
                logger.debug("token renewal held back", metadata: ["session": "\(name)", "code": "\(blocked.qualifiedCode)"])
                throw blocked
            }
            update { core in
                core.window.recordAttempt(at: now)
                if case .refresh = renewal { core.state = .refreshing } else { core.state = .authenticating }
            }
            switch renewal {
            case .refresh(let refreshToken):
                do {
                    // nil: the session changed meanwhile (signed out or in anew); decide again.
                    guard let token = try await refresh(using: refreshToken, current: current, generation: generation) else { continue }
                    return token
                } catch {
                    if error.endsSession {
                        await endSession(because: error, expectedGeneration: generation)
                        // An ended session may still sign in again by itself (once per renewal).
                        if canSignIn && allowSignInAfterEnd {
                            allowSignInAfterEnd = false
                            continue
                        }
                        throw error
                    }
                    return try recover(from: error, current: current, isRefresh: true)
                }
            case .signIn:
                do {
                    guard let token = try await automaticSignIn(generation: generation) else { continue }
                    return token
                } catch {
                    return try recover(from: error, current: current, isRefresh: false)
                }
            }
        }
    }

    /// Refreshes with `refreshToken` and verifies the identity the answer carries (or the ID
    /// token still pending from an earlier refresh, when it carries none).
    ///
    /// - A refused identity ends the session (the caller ends it): the new tokens are discarded
    ///   and the refresh token nobody will hold is revoked (the rotated one, else the one used).
    /// - An identity that cannot be decided yet (its provider's keys unreachable, a key set
    ///   lagging behind a rotation) loses nothing: the new tokens are saved and used with the
    ///   identity verified before, and the new ID token is kept pending, never used, until a
    ///   later refresh verifies it.
    private func refresh(using refreshToken: String, current: SessionCore.ActiveToken?, generation: UInt64) async throws(OAuth2Error) -> OAuth2Token? {
        logger.debug("refreshing the access token", metadata: ["session": "\(name)"])
        let response = try await RefreshTokenGrant(refreshToken: refreshToken).requestToken(from: server)
        let token = response.token(receivedAt: clock.now, previousRefreshToken: refreshToken)
        let rotated = response.refreshToken != nil && response.refreshToken != refreshToken
        var checked = response
        if response.idToken == nil, let pending = current?.pendingIDToken {
            checked = TokenResponse(
                accessToken: response.accessToken, tokenType: response.tokenType, expiresIn: response.expiresIn,
                refreshToken: response.refreshToken, scopes: response.scopes, idToken: pending)
        }
        var identity: SessionIdentity?
        var pending: (idToken: String, reason: OAuth2Error)?
        do {
            identity = try await verifyIdentity(in: checked, for: .refresh(current: current?.identity))
        } catch {
            guard error.code == .identityUnavailable, let idToken = checked.idToken else {
                if error.endsSession { await revokeDiscarded(response.refreshToken ?? refreshToken) }
                throw error
            }
            identity = current?.identity
            pending = (idToken, error)
        }
        // Saved before it is used: a rotated refresh token lost in a crash would end the session.
        guard let published = await commit(token, identity: identity, pending: pending, receivedAt: clock.uptime, expectedGeneration: generation) else {
            // Signed out (or in anew) while the refresh ran: the sign-out revoked the old
            // refresh token; the rotated one is nobody's now and must not stay valid.
            if rotated, let discarded = response.refreshToken { await revokeDiscarded(discarded) }
            return nil
        }
        logger.debug("access token refreshed", metadata: [
            "session": "\(name)", "rotated": "\(rotated)",
            "expires_in": "\(response.expiresIn.map { OAuth2Error.seconds($0) } ?? "unknown")",
        ])
        if let pending {
            logger.warning("tokens refreshed and saved; their ID token could not be verified yet: the identity verified before is kept, the new one is verified at the next refresh", metadata: [
                "session": "\(name)", "code": "\(pending.reason.qualifiedCode)",
                "reason": "\(pending.reason.identityError?.qualifiedCode ?? pending.reason.qualifiedCode)",
            ])
        }
        emit(.refreshed(published.info))
        return published
    }

    /// Revokes a token no session holds (best effort: logged, never thrown): a refresh token a
    /// sign-out superseded, or the tokens of an identity that was refused.
    func revokeDiscarded(_ token: String, hint: String = "refresh_token") async {
        guard configuration.endpoints.revocation != nil else { return }
        do {
            try await server.revoke(token, hint: hint)
            logger.debug("revoked a token the session discarded", metadata: ["session": "\(name)", "hint": "\(hint)"])
        } catch {
            logger.warning("revoking a discarded token failed", metadata: ["session": "\(name)", "code": "\(error.qualifiedCode)"])
        }
    }

    /// Revokes what a sign-in whose identity was not accepted obtained: its refresh token, else
    /// its access token.
    func revokeDiscarded(_ response: TokenResponse) async {
        if let refreshToken = response.refreshToken {
            await revokeDiscarded(refreshToken)
        } else {
            await revokeDiscarded(response.accessToken, hint: "access_token")
        }
    }

    private func automaticSignIn(generation: UInt64) async throws(OAuth2Error) -> OAuth2Token? {
        guard let grant = configuration.automaticSignIn else { throw .notSignedIn }
        logger.debug("signing in automatically", metadata: ["session": "\(name)", "grant": "\(grant.grantName)"])
        let response = try await grant.requestToken(from: server)
        let identity: SessionIdentity?
        do {
            identity = try await verifyIdentity(in: response, for: .signIn(grant: grant.grantName))
        } catch {
            await revokeDiscarded(response)
            throw error
        }
        let token = response.token(receivedAt: clock.now)
        guard let published = await commit(token, identity: identity, receivedAt: clock.uptime, expectedGeneration: generation, isSignIn: true) else { return nil }
        logger.info("signed in automatically", metadata: ["session": "\(name)", "grant": "\(grant.grantName)"])
        emit(.signedIn(published.info, grant: grant.grantName))
        return published
    }

    /// A failed renewal that keeps the session: back off, report, and keep using a token that
    /// is still valid; otherwise fail with the error (every waiter gets the same one).
    private func recover(from error: OAuth2Error, current: SessionCore.ActiveToken?, isRefresh: Bool) throws(OAuth2Error) -> OAuth2Token {
        let now = clock.uptime
        let stillValid = update { core -> OAuth2Token? in
            if error.code != .cancelled {
                let retryAfter: Duration? = if case .serverUnavailable(let response) = error { response.retryAfter } else { nil }
                core.backoff.recordFailure(at: now, serverRetryAfter: retryAfter)
                core.lastFailure = error
            }
            if let active = core.active {
                core.state = .authenticated(active.token.info)
                return active.isUsable(at: now) ? active.token : nil
            }
            core.state = error.code == .cancelled ? .signedOut : .failed(error)
            return nil
        }
        if error.code != .cancelled {
            logger.warning(isRefresh ? "token refresh failed; session kept" : "automatic sign-in failed", metadata: ["session": "\(name)", "code": "\(error.qualifiedCode)"])
            emit(isRefresh ? .refreshFailed(error) : .signInFailed(error, grant: configuration.automaticSignIn?.grantName ?? "?"))
        }
        if let stillValid, current?.token.accessToken == stillValid.accessToken { return stillValid }
        throw error
    }

    /// Saves `token` and `identity` to the store, then makes them current, unless the session
    /// changed generation meanwhile (signed out, or signed in anew). Returns the token, or nil
    /// when it was superseded.
    func commit(
        _ token: OAuth2Token, identity: SessionIdentity?, pending: (idToken: String, reason: OAuth2Error)? = nil, receivedAt: Duration,
        expectedGeneration: UInt64?, isSignIn: Bool = false
    ) async -> OAuth2Token? {
        await commits.run { [self] () async -> OAuth2Token? in
            let stale = core.withLock { core in expectedGeneration.map { $0 != core.generation } ?? false }
            if !stale {
                await saveToStore(token, identity: identity, pendingIDToken: pending?.idToken)
            }
            return update { core -> OAuth2Token? in
                if let expectedGeneration, expectedGeneration != core.generation {
                    return nil
                }
                let lifetime = token.lifetime(from: token.obtainedAt)
                core.active = SessionCore.ActiveToken(
                    token: token, identity: identity, pendingIDToken: pending?.idToken, pendingReason: pending?.reason,
                    expiresAtUptime: lifetime.map { receivedAt + $0 })
                core.backoff.recordSuccess()
                core.lastFailure = nil
                if expectedGeneration == nil || isSignIn {
                    core.refusedStore = nil
                    core.generation += 1
                    if expectedGeneration == nil { core.window.reset() }
                }
                core.state = .authenticated(token.info)
                return token
            }
        }
    }

    /// Ends the session on its own (`invalid_grant`, or an expired token nothing can renew):
    /// signed out, store cleared, event. Does nothing if the generation moved on.
    func endSession(because error: OAuth2Error, expectedGeneration: UInt64?) async {
        let ended = update { core -> Bool in
            if let expectedGeneration, expectedGeneration != core.generation { return false }
            guard core.active != nil else { return false }
            core.active = nil
            core.generation += 1
            core.state = .signedOut
            return true
        }
        guard ended else { return }
        logger.warning("session ended", metadata: ["session": "\(name)", "code": "\(error.qualifiedCode)"])
        await commits.run { [self] in await clearStore() }
        emit(.sessionEnded(error))
    }

    // MARK: - Store

    /// Reads the store once, before anything else uses the session.
    func ensureRestored() async {
        if core.withLock({ $0.restored }) { return }
        _ = try? await restoreFlight.run { [self] in
            await performRestore()
            return true
        }
    }

    /// Restores the session from the store, if it has not been read yet, and returns the state.
    @discardableResult
    public func restore() async -> OAuth2SessionState {
        await ensureRestored()
        return state
    }

    private func performRestore() async {
        if core.withLock({ $0.restored }) { return }
        let loaded: StoredSession?
        do {
            loaded = try await configuration.store.load()
        } catch {
            update { core in
                core.restored = true
            }
            logger.warning("the session store cannot be read; starting signed out", metadata: [
                "session": "\(name)", "code": "\(error.qualifiedCode)",
                "moved_aside": "\(error.movedAside?.path ?? "no")",
            ])
            emit(.storeUnreadable(error))
            return
        }
        let configured = SessionProvenance(configuration)
        if let loaded, let recorded = loaded.provenance, let difference = recorded.difference(from: configured) {
            // Another server's or client's session: none of it is used, and the store stays as it is.
            let error = OAuth2Error.storedSessionMismatch(member: difference.member, stored: difference.stored, configured: difference.configured)
            update { core in
                core.restored = true
                core.refusedStore = (error, loaded)
                core.state = .failed(error)
            }
            logger.warning("the stored session was issued by another server or client; not used", metadata: [
                "session": "\(name)", "code": "\(error.qualifiedCode)", "member": "\(difference.member.rawValue)",
            ])
            emit(.storeRefused(error))
            return
        }
        // The verifier takes back what it saved (its provider's documents) before anything refreshes.
        if let identity = loaded?.identity { await configuration.identityVerifier?.restore(identity) }
        let now = clock.now
        let uptime = clock.uptime
        let restored = update { core -> TokenInfo? in
            defer { core.restored = true }
            guard !core.restored, core.active == nil, let token = loaded?.token.clampingExpiry(around: now) else { return nil }
            let remaining = token.lifetime(from: now)
            core.active = SessionCore.ActiveToken(
                token: token, identity: loaded?.identity, pendingIDToken: loaded?.pendingIDToken, expiresAtUptime: remaining.map { uptime + $0 })
            core.state = .authenticated(token.info)
            return token.info
        }
        if let restored {
            logger.debug("session restored from the store", metadata: ["session": "\(name)"])
            emit(.restored(restored))
            if let loaded, loaded.provenance == nil {
                // Written before sessions recorded who issued them: accepted this once, and saved
                // again with the record.
                await commits.run { [self] in
                    guard let active = core.withLock({ $0.active }), active.token.accessToken == loaded.token.accessToken else { return }
                    await saveToStore(active.token, identity: active.identity, pendingIDToken: active.pendingIDToken)
                }
            }
        }
    }

    private func saveToStore(_ token: OAuth2Token, identity: SessionIdentity?, pendingIDToken: String?) async {
        var stored = StoredSession(
            token: token, identity: identity, pendingIDToken: pendingIDToken, savedAt: clock.now, provenance: SessionProvenance(configuration))
        if configuration.storesClientConfiguration {
            stored.endpoints = configuration.endpoints
            stored.client = configuration.client
            stored.headerScheme = configuration.headerScheme
        }
        do {
            try await configuration.store.save(stored)
        } catch {
            logger.error("saving the session failed; it goes on in memory only", metadata: ["session": "\(name)", "code": "\(error.qualifiedCode)"])
            emit(.storeWriteFailed(error))
        }
    }

    func clearStore() async {
        do {
            try await configuration.store.clear()
        } catch {
            logger.error("clearing the session store failed", metadata: ["session": "\(name)", "code": "\(error.qualifiedCode)"])
            emit(.storeWriteFailed(error))
        }
    }
}
