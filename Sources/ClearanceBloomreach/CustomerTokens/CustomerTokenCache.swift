import Clearance
import Foundation

/// The state of a ``CustomerTokenSource`` as a plain value: whose token it is, the token, and
/// the *generation*, which moves on every change of customer. A fetch is tagged with the
/// generation it started in, and its token is accepted only if the generation is still the
/// same: a token fetched for one customer is never applied after the customer changed.
struct CustomerTokenCache: Sendable {
    /// A token in the cache.
    struct Token: Sendable {
        var credential: Credential
        var raw: String
        var expiresAt: Date?
        var receivedAt: Date
        /// `aboutToExpire` was posted for this token.
        var warned = false
    }

    /// One fetch for one customer: what the flight needs, tagged with its generation.
    struct Attempt: Sendable {
        var generation: UInt64
        var customer: CustomerIDs
        var flight: SingleFlight<Credential>
    }

    /// What a caller must do.
    enum Lookup: Sendable {
        /// Use this token.
        case fresh(Credential)
        /// Fetch one through `attempt.flight`; post `notice` first.
        case fetch(Attempt, notice: CustomerTokenEvent?)
    }

    private(set) var customer: CustomerIDs
    private(set) var generation: UInt64 = 0
    private(set) var token: Token?
    private var flight = SingleFlight<Credential>()
    /// How many callers wait now for the current customer's fetch.
    var waiterCount: Int { flight.waiterCount }
    private var restoreAttempted = false

    init(customer: CustomerIDs) {
        self.customer = customer
    }

    /// The token to use at `now`, or the fetch to join. A token is renewed `leeway` before it
    /// expires (``CustomerTokenEvent/aboutToExpire(_:expiresAt:)``, posted once per token); one
    /// found past its expiry is dropped (``CustomerTokenEvent/expired(_:expiredAt:)``).
    mutating func lookup(now: Date, leeway: TimeInterval) -> Lookup {
        if let fresh = fresh(at: now, leeway: leeway) { return .fresh(fresh) }
        var notice: CustomerTokenEvent?
        if let current = token, let expiry = current.expiresAt {
            if now >= expiry {
                notice = .expired(customer, expiredAt: expiry)
                token = nil
            } else if !current.warned {
                notice = .aboutToExpire(customer, expiresAt: expiry)
                token?.warned = true
            }
        }
        return .fetch(Attempt(generation: generation, customer: customer, flight: flight), notice: notice)
    }

    /// The token, if it is more than `leeway` from its expiry at `now`.
    func fresh(at now: Date, leeway: TimeInterval) -> Credential? {
        guard let current = token else { return nil }
        if let expiry = current.expiresAt, now.addingTimeInterval(leeway) >= expiry { return nil }
        return current.credential
    }

    /// Makes `next` the customer. Returns the previous customer when it changed (the token is
    /// then dropped, and later fetches go to a new flight), nil when `next` is already the customer.
    mutating func switchCustomer(to next: CustomerIDs) -> CustomerIDs? {
        guard next != customer else { return nil }
        defer {
            customer = next
            generation &+= 1
            token = nil
            flight = SingleFlight()
            restoreAttempted = false
        }
        return customer
    }

    /// Keeps `fetched` if the customer has not changed since `attempt` began; false when it has.
    mutating func accept(_ fetched: Token, from attempt: Attempt) -> Bool {
        guard attempt.generation == generation else { return false }
        token = fetched
        return true
    }

    /// True the first time it is asked for the current customer: the store is then consulted
    /// before the provider (once per customer, by the flight that asks).
    mutating func claimRestore(for attempt: Attempt) -> Bool {
        guard attempt.generation == generation, !restoreAttempted else { return false }
        restoreAttempted = true
        return true
    }

    /// True when `generation` is still the current one.
    func isCurrent(_ generation: UInt64) -> Bool { generation == self.generation }

    /// Drops the token if it is `rejected`; true when it was (false: already replaced or dropped).
    mutating func drop(_ rejected: Credential) -> Bool {
        guard token?.credential == rejected else { return false }
        token = nil
        return true
    }

    /// Drops the token, whatever it is; true when there was one.
    mutating func dropAny() -> Bool {
        defer { token = nil }
        return token != nil
    }
}
