import Clearance
import ClearanceStore
import Foundation
import Logging

/// An ``EntitlementProvider`` on Pugpig's subscription API (Pugpig's `KGServerAuthorisation`):
/// sign in, verify the subscription, renew a stale token, hand over edition credentials, sign out.
///
/// - **Renewal**: a `stale` answer renews the token once (one renewal shared by every caller,
///   through `SingleFlight`), then verifies again. A refused renewal ends the session: the store
///   is cleared, the state is ``SubscriptionState/signedOut`` and a change is sent.
/// - **Snapshot**: the last answer (state, products, message, time) is kept with the token in
///   the configured `SecureStore`; ``status()`` asks the service again once it is older than
///   ``PugpigConfiguration/verificationInterval``, and serves it for
///   ``PugpigConfiguration/offlineGrace`` when the service cannot be reached, saying so.
/// - **Changes**: ``changes`` and `NotificationCenter` posts (``EntitlementChange/notificationName``) when the
///   state or the products change, never on a poll that found them unchanged.
/// - **Errors** map as Pugpig's provider does: a transport failure is `networkFailure`; a 5xx or
///   unparsable answer is `unknown` (with the answer kept); `notentitled` while active is
///   `productUnavailable`; inactive, suspended, or a session ended by a refused renewal is
///   `subscriptionExpired`; a refused sign-in is `notRecognised`.
///
/// ```swift
/// let pugpig = PugpigEntitlementProvider(configuration: PugpigConfiguration(
///     endpoints: .standard(base: URL(string: "https://subs.example.com/pugpig")!),
///     store: StoredEntitlements.fileStore(at: storeURL, key: try .loadOrCreate(file: keyURL))))
/// try await pugpig.signIn(username: "reader@example.com", password: password)
/// let snapshot = try await pugpig.verify()            // state, products, message
/// let credentials = try await pugpig.credentials(for: "issue-42")
/// ```
public actor PugpigEntitlementProvider: EntitlementProvider {
    public nonisolated let name: String
    /// The configuration.
    public nonisolated let configuration: PugpigConfiguration
    let client: PugpigClient
    let events: NotifyingBroadcaster<EntitlementChange>
    let renewal = SingleFlight<String>()
    /// One verification for every caller that finds the snapshot due at the same time.
    let dueVerification = SingleFlight<EntitlementSnapshot>()
    let logger: Logger

    /// The signed-in session (nil when signed out); loaded from the store on first use.
    var session: StoredEntitlements?
    /// The one load from the store: every caller that comes while it runs waits for it.
    var loading: Task<Void, Never>?
    /// The last entitlement announced as a change (what listeners believe).
    var announced: EntitlementSnapshot?
    private var loadError: SessionStoreError?

    /// A provider for `configuration`.
    public init(configuration: PugpigConfiguration) {
        self.configuration = configuration
        self.name = configuration.name
        self.logger = configuration.logger
        self.client = PugpigClient(
            method: configuration.method, transport: configuration.transport,
            transportSecurity: configuration.transportSecurity, logger: configuration.logger)
        self.events = NotifyingBroadcaster(name: EntitlementChange.notificationName, key: EntitlementChange.userInfoKey, notificationCenter: configuration.notificationCenter)
    }

    public nonisolated var changes: AsyncStream<EntitlementChange> { events.subscribe() }

    /// Why the store could not be read (the provider then started signed out), if it could not.
    public var storeError: SessionStoreError? {
        get async {
            await loadIfNeeded()
            return loadError
        }
    }

    /// True while a session (a token) is held.
    public var isSignedIn: Bool {
        get async {
            await loadIfNeeded()
            return session != nil
        }
    }

    /// The last snapshot the service gave this session, without asking it (nil when signed out
    /// or never verified).
    public var lastSnapshot: EntitlementSnapshot? {
        get async {
            await loadIfNeeded()
            return session?.snapshot
        }
    }

    /// Pugpig's `global_auth_password` from the last sign-in or renewal, if the service sent
    /// one (Pugpig apps send it in the `Authorization` header of feed requests). Secret.
    public func globalAuthPassword() async -> String? {
        await loadIfNeeded()
        return session?.globalAuthPassword
    }

    /// ``EntitlementAccess/notClaimed`` for products outside ``PugpigConfiguration/claims`` and
    /// while signed out; otherwise granted or denied by ``status()`` (which verifies when the
    /// snapshot is due, and serves it offline within the grace period).
    public func access(to product: String) async -> EntitlementAccess {
        guard configuration.claims(product) else { return .notClaimed }
        let status = await status()
        if status.snapshot.state == .signedOut { return .notClaimed }
        return status.grants(product) ? .granted : .denied
    }

    /// Asks `edition_credentials` for `product` (every time: edition passwords may expire),
    /// verifying first when no snapshot is known.
    /// - Throws: `subscriptionExpired` when signed out, inactive or suspended;
    ///   `productUnavailable` when the product is not part of an active subscription;
    ///   `networkFailure` or `unknown` as every call.
    public func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials {
        await loadIfNeeded()
        guard let token = session?.token else { throw .subscriptionExpired(state: .signedOut, message: nil) }
        if session?.snapshot == nil { _ = try await verify() }
        let root = try await client.call(
            try PugpigEndpoints.required(configuration.endpoints.editionCredentials, "edition_credentials"), endpoint: "edition_credentials",
            fields: [("token", token), ("product_id", product)], secrets: [token], answerHoldsSecrets: true)
        guard let answer = PugpigCredentialsAnswer(root) else { throw PugpigClient.unexpected(root, endpoint: "edition_credentials") }
        switch answer {
        case .credentials(let credentials):
            return credentials
        case .error(let refusal):
            throw refusalError(refusal, product: product)
        }
    }

    /// Pugpig's mapping of an edition-credentials refusal.
    private func refusalError(_ refusal: PugpigErrorElement, product: String) -> EntitlementError {
        guard refusal.status == "notentitled" else {
            return .unknown(
                reason: "the service refused the credentials for '\(product)'\(refusal.message.map { ": \($0)" } ?? "")",
                status: refusal.status)
        }
        switch session?.snapshot?.state {
        case .inactive: return .subscriptionExpired(state: .inactive, message: refusal.message)
        case .suspended: return .subscriptionExpired(state: .suspended, message: refusal.message)
        case nil, .signedOut: return .subscriptionExpired(state: .signedOut, message: refusal.message)
        case .active, .unknown, .stale: return .productUnavailable(product: product, message: refusal.message)
        }
    }

    // MARK: - State

    /// Loads the store once; an unreadable store starts signed out (``storeError`` says why).
    /// Callers that come while the load runs wait for it (never a "signed out" answer for a
    /// session that is still being read, nor a sign-in the load would overwrite).
    func loadIfNeeded() async {
        if let loading { return await loading.value }
        let load = Task { await self.loadFromStore() }
        loading = load
        await load.value
    }

    private func loadFromStore() async {
        do {
            session = try await configuration.store.load()
        } catch {
            loadError = error
            logger.warning("the entitlement store cannot be read; starting signed out", metadata: ["error": "\(error.qualifiedCode)"])
        }
        announced = session?.snapshot ?? .signedOut(at: configuration.now())
    }

    /// Saves the session; a failure is logged and returned.
    @discardableResult
    func persist() async -> SessionStoreError? {
        do {
            if let session { try await configuration.store.save(session) } else { try await configuration.store.clear() }
            return nil
        } catch {
            logger.error("the entitlement store cannot be written", metadata: ["error": "\(error.qualifiedCode)"])
            return error
        }
    }

    /// Sends a change when `snapshot` differs in state or products from what was announced.
    func announce(_ snapshot: EntitlementSnapshot) {
        guard snapshot.differsInEntitlement(from: announced) else { return }
        let change = EntitlementChange(provider: name, previous: announced, current: snapshot)
        announced = snapshot
        logger.debug("entitlement changed", metadata: ["state": "\(snapshot.state)", "access": "\(snapshot.access)"])
        events.post(change)
    }
}
