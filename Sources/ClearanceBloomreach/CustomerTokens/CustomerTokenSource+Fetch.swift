import Clearance
import ClearanceStore
import ClearanceWire
import Foundation

extension CustomerTokenSource {
    /// One flight: the stored token for this customer if there is a usable one (the first time),
    /// else the provider's. The token is kept only if the customer is still the one it was
    /// fetched for; otherwise it is thrown away and the waiting callers fetch again.
    func fetch(_ attempt: CustomerTokenCache.Attempt) async throws(AuthorizationError) -> Credential {
        guard isCurrent(attempt) else { throw .unavailable(reason: "the customer changed before the token was asked for") }
        // A caller that found no fresh token may start this flight just after the one that
        // stored it finished: it takes that token rather than asking the provider again.
        let moment = now()
        if let fresh = state.withLock({ $0.isCurrent(attempt.generation) ? $0.fresh(at: moment, leeway: leeway) : nil }) { return fresh }
        if state.withLock({ $0.claimRestore(for: attempt) }), let restored = await restore(attempt) {
            return restored
        }
        let raw = try await askProvider(for: attempt.customer)
        let credential = try Credential.bearer(raw).validated(source: name)
        let receivedAt = now()
        let token = CustomerTokenCache.Token(credential: credential, raw: raw, expiresAt: expiry(of: raw, receivedAt: receivedAt), receivedAt: receivedAt)
        let accepted = state.withLock { cache in
            guard cache.accept(token, from: attempt) else { return false }
            publisher.enqueue(.received(attempt.customer, expiresAt: token.expiresAt))
            return true
        }
        guard accepted else {
            logger.info("a customer token arrived after the customer changed; thrown away", metadata: ["source": "\(name)"])
            announce(.discarded(attempt.customer))
            return credential
        }
        logger.debug("customer token received", metadata: ["source": "\(name)", "expiresAt": "\(token.expiresAt.map { "\($0)" } ?? "none")"])
        publisher.flush()
        await save(StoredCustomerToken(customerIDs: attempt.customer, token: raw, expiresAt: token.expiresAt, receivedAt: receivedAt), for: attempt)
        return credential
    }

    /// The provider's token for `customer`, trimmed; anonymous customers are not asked.
    private func askProvider(for customer: CustomerIDs) async throws(AuthorizationError) -> String {
        guard !customer.isAnonymous else {
            announce(.notProvided(customer))
            throw .missingCredential(source: name, underlying: CustomerTokenMissing.anonymous)
        }
        let answer: String?
        do {
            answer = try await provider(customer)
        } catch {
            let failure = error is CancellationError ? .cancelled : (error as? AuthorizationError ?? .missingCredential(source: name, underlying: error))
            if failure.code != .cancelled {
                logger.warning("the customer-token provider failed", metadata: ["source": "\(name)", "code": "\(failure.qualifiedCode)"])
                announce(.providerFailed(customer, failure))
            }
            throw failure
        }
        let token = answer?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !token.isEmpty else {
            logger.warning("the customer-token provider returned no token", metadata: ["source": "\(name)"])
            announce(.notProvided(customer))
            throw .missingCredential(source: name, underlying: CustomerTokenMissing.notProvided)
        }
        return token
    }

    /// The token's `exp`, read without verifying anything; else `maxAge` from its arrival.
    private func expiry(of raw: String, receivedAt: Date) -> Date? {
        do {
            if let expiry = try CompactJWT(raw).expiresAt {
                if expiry <= receivedAt.addingTimeInterval(leeway) {
                    logger.warning("the customer token expires within the leeway of its arrival (is the clock right?)", metadata: ["source": "\(name)"])
                }
                return expiry
            }
        } catch {
            logger.warning("the customer token is not a JWT; its expiry cannot be read", metadata: ["source": "\(name)", "reason": "\(error)"])
        }
        return maxAge.map { receivedAt.addingTimeInterval($0) }
    }

    /// The stored token, if it was fetched for this very customer and is not due for renewal.
    private func restore(_ attempt: CustomerTokenCache.Attempt) async -> Credential? {
        guard let store else { return nil }
        let loaded = await commits.run { () -> Result<StoredCustomerToken?, SessionStoreError> in
            do throws(SessionStoreError) { return .success(try await store.load()) } catch { return .failure(error) }
        }
        let stored: StoredCustomerToken
        switch loaded {
        case .failure(let error):
            report(error, "read")
            return nil
        case .success(nil):
            return nil
        case .success(let record?):
            stored = record
        }
        guard stored.customerIDs == attempt.customer else {
            await forgetStored(stored.token)
            return nil
        }
        if let expiry = stored.expiresAt, now().addingTimeInterval(leeway) >= expiry { return nil }
        guard let credential = try? Credential.bearer(stored.token).validated(source: name) else { return nil }
        let token = CustomerTokenCache.Token(credential: credential, raw: stored.token, expiresAt: stored.expiresAt, receivedAt: stored.receivedAt)
        let accepted = state.withLock { cache in
            guard cache.accept(token, from: attempt) else { return false }
            publisher.enqueue(.restored(attempt.customer, expiresAt: stored.expiresAt))
            return true
        }
        guard accepted else { return nil }
        publisher.flush()
        return credential
    }

    /// Saves `record` unless the customer changed meanwhile (checked in the commit queue, so a
    /// later clear is never overtaken).
    private func save(_ record: StoredCustomerToken, for attempt: CustomerTokenCache.Attempt) async {
        await commit("write") { [self] store throws(SessionStoreError) in
            if isCurrent(attempt) { try await store.save(record) }
        }
    }

    /// Clears the store if it still holds `raw` (a token dropped as refused, invalidated, or
    /// fetched for another customer).
    func forgetStored(_ raw: String) async {
        await commit("clear") { store throws(SessionStoreError) in
            if try await store.load()?.token == raw { try await store.clear() }
        }
    }

    /// Clears the store (the customer changed).
    func clearStore() async {
        await commit("clear") { store throws(SessionStoreError) in try await store.clear() }
    }

    /// Runs `operation` on the store in the commit queue (after every earlier one); a failure is
    /// logged and announced, and the source goes on in memory.
    private func commit(_ operation: String, _ body: @escaping @Sendable (any SecureStore<StoredCustomerToken>) async throws(SessionStoreError) -> Void) async {
        guard let store else { return }
        let failure = await commits.run { () -> SessionStoreError? in
            do throws(SessionStoreError) { try await body(store) } catch { return error }
            return nil
        }
        if let failure { report(failure, operation) }
    }

    private func report(_ error: SessionStoreError, _ operation: String) {
        logger.error("the customer-token store cannot be used; going on in memory", metadata: ["source": "\(name)", "operation": "\(operation)", "code": "\(error.qualifiedCode)"])
        announce(.storeFailed(error))
    }
}
