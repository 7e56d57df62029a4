import Clearance
import ClearanceStore
import Foundation
import Logging

/// The customer token (Bloomreach's advanced auth): a credential source that wraps the app's
/// provider and keeps the token for one customer at a time.
///
/// - **Expiry from the token.** The JWT's `exp` is read (decoded, never trusted: the server
///   decides) and the token is renewed `leeway` before it; a token without `exp` lives `maxAge`
///   from its arrival (or until refused, when `maxAge` is nil). One provider call however many
///   requests wait (`SingleFlight`).
/// - **Identity.** ``identify(_:)`` and ``anonymize()`` drop the token at once. A token fetched
///   for one customer is never applied after the customer changed, even when the fetch was in
///   flight during the switch: it is thrown away (``CustomerTokenEvent/discarded(_:)``) and the
///   waiting requests get a token for the new customer.
/// - **Refusal.** On a 401 `AuthorizedClient` calls ``refreshCredential(after:)`` once: the
///   refused token is dropped (``CustomerTokenEvent/rejected(_:)``) and the request retried once.
/// - **Events** (``events``, and `NotificationCenter` posts named
///   ``CustomerTokenEvent/notificationName``): about to expire, expired, rejected, not provided,
///   and what the source did about them. Expiry is noticed when a request asks for the token.
/// - **Persistence** (optional): the current token in a `SecureStore` (an encrypted file, see
///   ``StoredCustomerToken/fileStore(at:key:)``, or the Keychain), keyed by the customer it was
///   fetched for: restored only for that customer, cleared when the customer changes.
///
/// ```swift
/// let tokens = CustomerTokenSource(customer: ["registered": "jane@example.com"]) { customer in
///     try await backend.customerToken(for: customer.values)   // nil or "": TOKEN_NOT_PROVIDED
/// }
/// let authorizer = try Bloomreach.authorizer(.advanced(apiKey: key, customerTokens: tokens))
/// await tokens.identify(["registered": "john@example.com"])   // jane's token is gone
/// ```
public final class CustomerTokenSource: RefreshableCredentialSource {
    /// The app's provider: a customer token (a JWT) for `customer`, or nil when it has none.
    public typealias Provider = @Sendable (_ customer: CustomerIDs) async throws -> String?

    /// The name used in errors and logs.
    public let name: String
    /// How long before its expiry a token is renewed.
    public let leeway: TimeInterval
    /// The lifetime of a token without `exp`, from its arrival; nil keeps it until refused.
    public let maxAge: TimeInterval?
    let provider: Provider
    let store: (any SecureStore<StoredCustomerToken>)?
    let publisher: NotifyingBroadcaster<CustomerTokenEvent>
    let logger: Logger
    let now: @Sendable () -> Date
    let state: Locked<CustomerTokenCache>
    let commits = CommitQueue()

    /// - Parameters:
    ///   - customer: The customer at start (from the app's own state); anonymous by default.
    ///   - name: The name used in errors and logs.
    ///   - leeway: How long before its expiry a token is renewed (default 60 s; negative counts as 0).
    ///   - maxAge: The lifetime of a token without `exp` (nil: until the server refuses it).
    ///   - store: Where the current token is kept between launches; nil keeps it in memory only.
    ///   - notificationCenter: Where events are posted; nil posts none.
    ///   - logger: Never given a token.
    ///   - now: The clock; injectable for tests.
    ///   - provider: The app's provider, asked for the current customer's token.
    public init(
        customer: CustomerIDs = .anonymous,
        name: String = Bloomreach.customerTokenSource,
        leeway: TimeInterval = 60,
        maxAge: TimeInterval? = nil,
        store: (any SecureStore<StoredCustomerToken>)? = nil,
        notificationCenter: NotificationCenter? = .default,
        logger: Logger = Logger(label: "clearance.bloomreach.customer-token"),
        now: @escaping @Sendable () -> Date = { Date() },
        provider: @escaping Provider
    ) {
        self.name = name
        self.leeway = max(0, leeway)
        self.maxAge = maxAge
        self.store = store
        self.publisher = NotifyingBroadcaster(
            name: CustomerTokenEvent.notificationName, key: CustomerTokenEvent.eventKey, notificationCenter: notificationCenter)
        self.logger = logger
        self.now = now
        self.provider = provider
        self.state = Locked(CustomerTokenCache(customer: customer))
    }

    /// Every event from now on.
    public var events: AsyncStream<CustomerTokenEvent> { publisher.subscribe() }

    /// The current customer.
    public var customer: CustomerIDs { state.withLock { $0.customer } }

    /// How many callers wait now for the current customer's fetch (tests wait for them, not
    /// for a time).
    package var waitingForFetch: Int { state.withLock { $0.waiterCount } }

    /// When the current token expires, as read from it (or from `maxAge`); nil without a token
    /// or an expiry.
    public var expiresAt: Date? { state.withLock { $0.token?.expiresAt } }

    /// The current customer's token: the cached one while it is more than `leeway` from its
    /// expiry, else one fetch shared by every caller.
    ///
    /// - Throws: `AuthorizationError.missingCredential` when no customer is
    ///   identified or the provider returned nothing (nothing is sent), the provider's error
    ///   otherwise, `AuthorizationError.cancelled` when the caller was cancelled.
    public func credential() async throws(AuthorizationError) -> Credential {
        while true {
            if Task.isCancelled { throw .cancelled }
            let moment = now()
            switch state.withLock({ $0.lookup(now: moment, leeway: leeway) }) {
            case .fresh(let credential):
                return credential
            case .fetch(let attempt, let notice):
                if let notice { announce(notice) }
                do {
                    let credential = try await attempt.flight.run { [self] in try await fetch(attempt) }
                    if isCurrent(attempt) { return credential }
                } catch {
                    if isCurrent(attempt) { throw AuthorizationError(wrapping: error) }
                }
                logger.debug("the customer changed while a token was fetched; fetching for the new customer", metadata: ["source": "\(name)"])
            }
        }
    }

    /// Drops `rejected` if it is still the current token (the server answered 401 to it:
    /// ``CustomerTokenEvent/rejected(_:)``, and it is removed from the store) and returns the
    /// current customer's token, fetched once however many requests were refused.
    public func refreshCredential(after rejected: Credential) async throws(AuthorizationError) -> Credential {
        // The event is taken in its place under the lock that drops the token: a caller that
        // then fetches the next one cannot announce it first.
        let dropped = state.withLock { cache -> String? in
            guard let token = cache.token, cache.drop(rejected) else { return nil }
            publisher.enqueue(.rejected(cache.customer))
            return token.raw
        }
        if let dropped {
            publisher.flush()
            logger.info("the server refused the customer token; fetching a new one", metadata: ["source": "\(name)"])
            await forgetStored(dropped)
        }
        return try await credential()
    }

    /// Forgets the current token (in memory and, when it holds it, in the store); the next
    /// request asks the provider.
    public func invalidate() {
        guard let raw = state.withLock({ cache -> String? in
            let raw = cache.token?.raw
            _ = cache.dropAny()
            return raw
        }) else { return }
        Task { await forgetStored(raw) }
    }

    /// Makes `customer` the current customer. When it is another customer, the token is dropped
    /// at once, before this returns to the caller's first suspension, and a fetch still in flight
    /// for the previous customer will be thrown away; the store is cleared before this returns.
    /// Identifying the current customer again changes nothing.
    public func identify(_ customer: CustomerIDs) async {
        let changed = state.withLock { cache -> Bool in
            guard let previous = cache.switchCustomer(to: customer) else { return false }
            publisher.enqueue(.customerChanged(from: previous, to: customer))
            return true
        }
        guard changed else { return }
        publisher.flush()
        logger.info("customer changed; the previous customer's token was dropped", metadata: ["source": "\(name)", "customer": "\(customer)"])
        await clearStore()
    }

    /// Makes the customer anonymous: the token is dropped at once and the store cleared; no
    /// token is asked for until ``identify(_:)``.
    public func anonymize() async {
        await identify(.anonymous)
    }

    func isCurrent(_ attempt: CustomerTokenCache.Attempt) -> Bool {
        state.withLock { $0.isCurrent(attempt.generation) }
    }

    func announce(_ event: CustomerTokenEvent) {
        publisher.post(event)
    }
}
