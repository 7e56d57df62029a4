import Clearance
import Foundation

extension PugpigEntitlementProvider {
    /// Asks `verify_subscription` now (whatever the snapshot's age), renewing a stale token
    /// once (one renewal shared by every caller) and asking again; keeps and returns the snapshot.
    /// - Throws: `subscriptionExpired` (signed out, or the renewal was refused: the session is
    ///   over); `networkFailure`; `unknown` (a 5xx or unparsable answer, still stale after renewal).
    @discardableResult
    public func verify() async throws(EntitlementError) -> EntitlementSnapshot {
        await loadIfNeeded()
        guard let token = session?.token else { throw .subscriptionExpired(state: .signedOut, message: nil) }
        var (answer, verifiedToken) = (try await askVerify(token), token)
        if case .subscription(.stale, _, _, _) = answer {
            logger.debug("stale token: renewing once")
            verifiedToken = try await renew(staleToken: token)
            answer = try await askVerify(verifiedToken)
            if case .subscription(.stale, _, _, _) = answer {
                throw .unknown(reason: "the service still answers stale after the token was renewed")
            }
        }
        guard let snapshot = answer.snapshot(at: configuration.now()) else {
            if case .error(let refusal) = answer {
                throw .unknown(reason: "the service refused to verify the subscription\(refusal.message.map { ": \($0)" } ?? "")", status: refusal.status)
            }
            throw .unknown(reason: "the verify_subscription answer holds no subscription")
        }
        // The session may have ended (or changed hands) while the service answered.
        guard session?.token == verifiedToken else { throw .subscriptionExpired(state: .signedOut, message: nil) }
        session?.snapshot = snapshot
        await persist()
        announce(snapshot)
        return snapshot
    }

    /// The snapshot and how current it is, asking the service only when it is due (older than
    /// ``PugpigConfiguration/verificationInterval``, or never verified): once for every caller
    /// that finds it due at the same time. When the service cannot
    /// be reached within ``PugpigConfiguration/verificationTimeout``, or answers nothing usable, the last snapshot serves until
    /// ``PugpigConfiguration/offlineGrace`` after it was fetched (``EntitlementStatus/Freshness/offline(graceEndsAt:)``),
    /// then nothing is granted (``EntitlementStatus/Freshness/graceExpired``).
    public func status() async -> EntitlementStatus {
        await loadIfNeeded()
        guard let held = session else { return EntitlementStatus(snapshot: .signedOut(at: configuration.now()), freshness: .fresh) }
        if let snapshot = held.snapshot, configuration.now().timeIntervalSince(snapshot.fetchedAt) < configuration.verificationInterval {
            return EntitlementStatus(snapshot: snapshot, freshness: .fresh)
        }
        do {
            let timeout = configuration.verificationTimeout
            let verified = try await dueVerification.run {
                try await Deadline.run(.seconds(timeout), timeoutError: {
                    EntitlementError.networkFailure(underlying: VerificationTimedOut())
                }) { try await self.verify() }
            }
            return EntitlementStatus(snapshot: verified, freshness: .fresh)
        } catch {
            guard session != nil else { return EntitlementStatus(snapshot: .signedOut(at: configuration.now()), freshness: .fresh) }
            logger.notice("cannot verify the subscription; serving the last snapshot", metadata: ["error": "\((error as? EntitlementError)?.qualifiedCode ?? "timeout")"])
            return offlineStatus()
        }
    }

    /// The stored snapshot without asking the service: ``EntitlementStatus/Freshness/fresh``
    /// within the verification interval, ``EntitlementStatus/Freshness/due`` after it and within
    /// the offline grace, ``EntitlementStatus/Freshness/graceExpired`` after that.
    public func cachedStatus() async -> EntitlementStatus {
        await loadIfNeeded()
        guard let held = session else { return EntitlementStatus(snapshot: .signedOut(at: configuration.now()), freshness: .fresh) }
        guard let snapshot = held.snapshot else {
            return EntitlementStatus(snapshot: EntitlementSnapshot(state: .unknown, access: .none, fetchedAt: held.savedAt), freshness: .due)
        }
        let age = configuration.now().timeIntervalSince(snapshot.fetchedAt)
        let freshness: EntitlementStatus.Freshness = age < configuration.verificationInterval ? .fresh : age < configuration.offlineGrace ? .due : .graceExpired
        return EntitlementStatus(snapshot: snapshot, freshness: freshness)
    }

    /// The last snapshot served offline (or nothing, once the grace is over).
    private func offlineStatus() -> EntitlementStatus {
        let now = configuration.now()
        guard let snapshot = session?.snapshot else {
            let nothing = EntitlementSnapshot(state: .unknown, access: .none, fetchedAt: session?.savedAt ?? now)
            announce(nothing)
            return EntitlementStatus(snapshot: nothing, freshness: .graceExpired)
        }
        let graceEnd = snapshot.fetchedAt.addingTimeInterval(configuration.offlineGrace)
        guard now < graceEnd else {
            // What listeners see changes: nothing is granted any more.
            var expired = snapshot
            expired.access = .none
            announce(expired)
            return EntitlementStatus(snapshot: snapshot, freshness: .graceExpired)
        }
        return EntitlementStatus(snapshot: snapshot, freshness: .offline(graceEndsAt: graceEnd))
    }

    private func askVerify(_ token: String) async throws(EntitlementError) -> PugpigSubscriptionAnswer {
        let root = try await client.call(
            try PugpigEndpoints.required(configuration.endpoints.verifySubscription, "verify_subscription"), endpoint: "verify_subscription",
            fields: [("token", token)], secrets: [token], answerHoldsSecrets: false)
        guard let answer = PugpigSubscriptionAnswer(root) else { throw PugpigClient.unexpected(root, endpoint: "verify_subscription") }
        return answer
    }

    // MARK: - Renewal

    /// A token for the session whose token `staleToken` was: the current one when another caller
    /// already renewed it, otherwise the one renewal in flight (shared by every caller).
    func renew(staleToken: String) async throws(EntitlementError) -> String {
        guard let current = session?.token else { throw .subscriptionExpired(state: .signedOut, message: nil) }
        if current != staleToken { return current }
        do {
            return try await renewal.run { [self] in try await self.performRenewal(of: staleToken) }
        } catch let error as EntitlementError {
            throw error
        } catch {
            throw .networkFailure(underlying: CancellationError())
        }
    }

    /// Calls `renew_token` once. A refusal (or no renewal endpoint) ends the session.
    private func performRenewal(of staleToken: String) async throws(EntitlementError) -> String {
        if let current = session?.token, current != staleToken { return current }
        guard session != nil else { throw .subscriptionExpired(state: .signedOut, message: nil) }
        guard let url = configuration.endpoints.renewToken else {
            logger.notice("stale token and no renew_token endpoint: the session ends")
            await endSession()
            throw .subscriptionExpired(state: .signedOut, message: nil)
        }
        let root = try await client.call(url, endpoint: "renew_token", fields: [("token", staleToken)], secrets: [staleToken], answerHoldsSecrets: true)
        guard let answer = PugpigTokenAnswer(root) else { throw PugpigClient.unexpected(root, endpoint: "renew_token") }
        switch answer {
        case .error(let refusal):
            logger.notice("renewal refused: the session ends", metadata: ["status": "\(refusal.status ?? "none")"])
            await endSession()
            throw .subscriptionExpired(state: .signedOut, message: refusal.message)
        case .token(let token, let globalAuthPassword):
            guard session?.token == staleToken else { throw .subscriptionExpired(state: .signedOut, message: nil) }
            session?.token = token
            if let globalAuthPassword { session?.globalAuthPassword = globalAuthPassword }
            session?.savedAt = configuration.now()
            await persist()
            logger.debug("token renewed")
            return token
        }
    }
}

/// The service did not answer within ``PugpigConfiguration/verificationTimeout``.
struct VerificationTimedOut: Error, CustomStringConvertible {
    var description: String { "the subscription service did not answer in time" }
}
