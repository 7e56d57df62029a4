import Clearance
import ClearanceEntitlements
import Foundation

/// An `EntitlementProvider` on verified App Store transactions, on any platform: the portable
/// part of StoreKit support. It is fed signed transactions (by `StoreKitEntitlementProvider` on
/// Apple platforms, or by a server that receives them), verifies each with an
/// ``AppStoreTransactionVerifier``, and grants what the active ones grant.
///
/// - ``access(to:)``: `EntitlementAccess.notClaimed` while it holds no transaction (so an
///   `EntitlementChain` asks the next provider) and for products outside `claims`; otherwise
///   granted when an active (unexpired, unrevoked) transaction grants the product, else denied.
/// - ``credentials(for:)``: what the app's `credentials` closure makes of the granting
///   transaction (an App Store purchase carries no content password: a server exchanges it).
public actor AppStoreEntitlementProvider: EntitlementProvider {
    public nonisolated let name: String
    private let verifier: AppStoreTransactionVerifier
    private let grants: @Sendable (AppStoreTransaction) -> ProductAccess
    private let claims: @Sendable (String) -> Bool
    private let makeCredentials: @Sendable (String, AppStoreTransaction) async throws(EntitlementError) -> ContentCredentials
    private let now: @Sendable () -> Date
    private let events: NotifyingBroadcaster<EntitlementChange>
    private var transactions: [String: AppStoreTransaction] = [:]
    private var announced: EntitlementSnapshot?

    /// - Parameters:
    ///   - verifier: Checks every signed transaction.
    ///   - name: The provider's name in logs and change events.
    ///   - grants: The content products a transaction grants (default: its own product id; a
    ///     subscription usually grants `ProductAccess.all`).
    ///   - claims: The products this provider decides (default: every product).
    ///   - notificationCenter: Where changes are posted; nil posts none.
    ///   - now: The clock, against which transactions expire; injectable for tests.
    ///   - credentials: The content credentials for a product and the transaction granting it.
    public init(
        verifier: AppStoreTransactionVerifier,
        name: String = "appstore",
        grants: @escaping @Sendable (AppStoreTransaction) -> ProductAccess = { .products([$0.productID]) },
        claims: @escaping @Sendable (String) -> Bool = { _ in true },
        notificationCenter: NotificationCenter? = .default,
        now: @escaping @Sendable () -> Date = { Date() },
        credentials: @escaping @Sendable (String, AppStoreTransaction) async throws(EntitlementError) -> ContentCredentials
    ) {
        self.verifier = verifier
        self.name = name
        self.grants = grants
        self.claims = claims
        self.makeCredentials = credentials
        self.now = now
        self.events = NotifyingBroadcaster(name: EntitlementChange.notificationName, key: EntitlementChange.userInfoKey, notificationCenter: notificationCenter)
    }

    public nonisolated var changes: AsyncStream<EntitlementChange> { events.subscribe() }

    /// Verifies `signedTransaction` and keeps it (a renewal replaces the earlier period of the
    /// same original transaction); sends a change when what is granted changes.
    @discardableResult
    public func record(signedTransaction: String) async throws(AppStoreVerificationError) -> AppStoreTransaction {
        let transaction = try await verifier.verify(signedTransaction)
        if let held = transactions[transaction.originalTransactionID], held.purchaseDate > transaction.purchaseDate, transaction.revocationDate == nil {
            return transaction  // an older period arriving late changes nothing
        }
        transactions[transaction.originalTransactionID] = transaction
        announce()
        return transaction
    }

    /// Replaces every transaction with `signedTransactions` (StoreKit's current entitlements,
    /// after a restore); those that fail verification are left out and returned.
    @discardableResult
    public func replaceAll(with signedTransactions: [String]) async -> [AppStoreVerificationError] {
        var verified: [String: AppStoreTransaction] = [:]
        var failures: [AppStoreVerificationError] = []
        for signed in signedTransactions {
            do {
                let transaction = try await verifier.verify(signed)
                verified[transaction.originalTransactionID] = transaction
            } catch {
                failures.append(error)
            }
        }
        transactions = verified
        announce()
        return failures
    }

    /// The transactions held (active or not).
    public var heldTransactions: [AppStoreTransaction] { transactions.values.sorted { $0.purchaseDate < $1.purchaseDate } }

    /// What the active transactions grant now.
    public var snapshot: EntitlementSnapshot {
        let date = now()
        let active = transactions.values.filter { $0.isActive(at: date) }
        guard !active.isEmpty else {
            return EntitlementSnapshot(state: transactions.isEmpty ? .signedOut : .inactive, access: .none, fetchedAt: date)
        }
        var ids = Set<String>()
        for transaction in active {
            switch grants(transaction) {
            case .all: return EntitlementSnapshot(state: .active, access: .all, fetchedAt: date)
            case .products(let granted): ids.formUnion(granted)
            }
        }
        return EntitlementSnapshot(state: .active, access: .products(ids), fetchedAt: date)
    }

    public func access(to product: String) async -> EntitlementAccess {
        guard claims(product), !transactions.isEmpty else { return .notClaimed }
        announce()
        return granting(product) == nil ? .denied : .granted
    }

    /// The app's credentials for the active transaction granting `product`.
    /// - Throws: `subscriptionExpired` when the only transactions for it have expired or were
    ///   revoked; `productUnavailable` when none grants it.
    public func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials {
        if let transaction = granting(product) { return try await makeCredentials(product, transaction) }
        if transactions.values.contains(where: { grants($0).contains(product) }) {
            throw .subscriptionExpired(state: .inactive, message: "the App Store purchase for '\(product)' has expired or was refunded")
        }
        throw .productUnavailable(product: product, message: "no App Store purchase grants '\(product)'")
    }

    private func granting(_ product: String) -> AppStoreTransaction? {
        let date = now()
        return transactions.values.first { $0.isActive(at: date) && grants($0).contains(product) }
    }

    /// Sends a change when the state or the products differ from what was last announced.
    private func announce() {
        let current = snapshot
        guard current.differsInEntitlement(from: announced) else { return }
        events.post(EntitlementChange(provider: name, previous: announced, current: current))
        announced = current
    }
}
