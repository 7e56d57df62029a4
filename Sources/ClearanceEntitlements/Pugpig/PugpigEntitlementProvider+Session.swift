import Clearance
import Foundation

extension PugpigEntitlementProvider {
    /// Signs in with ``PugpigConfiguration/usernameField`` and ``PugpigConfiguration/passwordField``.
    /// - Throws: `notRecognised` when the service refuses (with its message); `networkFailure`,
    ///   `unknown` (also when the token cannot be stored).
    public func signIn(username: String, password: String) async throws(EntitlementError) {
        try await signIn(fields: [(configuration.usernameField, username), (configuration.passwordField, password)])
    }

    /// Signs in with any credential fields (a subscriber number and a postcode, say), in order.
    /// The fields are never stored. A new session replaces any earlier one; call ``verify()`` next.
    public func signIn(fields: [(name: String, value: String)]) async throws(EntitlementError) {
        await loadIfNeeded()
        let root = try await client.call(
            try PugpigEndpoints.required(configuration.endpoints.signIn, "sign_in"), endpoint: "sign_in", fields: fields,
            secrets: fields.map(\.value), answerHoldsSecrets: true)
        guard let answer = PugpigTokenAnswer(root) else { throw PugpigClient.unexpected(root, endpoint: "sign_in") }
        switch answer {
        case .error(let refusal):
            logger.debug("sign-in refused", metadata: ["status": "\(refusal.status ?? "none")"])
            throw .notRecognised(message: refusal.message)
        case .token(let token, let globalAuthPassword):
            session = StoredEntitlements(token: token, globalAuthPassword: globalAuthPassword, savedAt: configuration.now())
            if let error = await persist() {
                throw .unknown(reason: "signed in, but the session cannot be stored", underlying: error)
            }
            logger.debug("signed in")
        }
    }

    /// Ends the session: tells the service (`sign_out`, when configured; its failure is only
    /// logged), clears the store, and sends the change to ``SubscriptionState/signedOut``.
    public func signOut() async {
        await loadIfNeeded()
        if let token = session?.token, let url = configuration.endpoints.signOut {
            do {
                _ = try await client.call(url, endpoint: "sign_out", fields: [("token", token)], secrets: [token], answerHoldsSecrets: false)
            } catch {
                logger.notice("sign_out failed; the session ends here anyway", metadata: ["error": "\(error.qualifiedCode)"])
            }
        }
        await endSession()
    }

    /// Forgets the session: store cleared, signed out, change sent.
    func endSession() async {
        session = nil
        await persist()
        announce(.signedOut(at: configuration.now()))
    }
}
