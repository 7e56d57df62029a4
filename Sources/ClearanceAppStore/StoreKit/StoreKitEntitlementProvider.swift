#if canImport(StoreKit)
import ClearanceEntitlements
import Foundation
import StoreKit

/// StoreKit 2 mapped into the portable ``AppStoreEntitlementProvider``: the current
/// entitlements at start, the `Transaction.updates` stream while it runs, and restore. It only
/// hands StoreKit's signed transactions (`jwsRepresentation`) over; every decision is the
/// portable provider's, after its own verification.
///
/// - Note: Written for Apple platforms and not compiled on Linux; kept small on purpose.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public final class StoreKitEntitlementProvider: EntitlementProvider {
    /// The portable provider that decides.
    public let appStore: AppStoreEntitlementProvider
    private let listener: Task<Void, Never>

    /// Starts listening to `Transaction.updates` (finishing each transaction once recorded) and
    /// loads the current entitlements.
    public init(appStore: AppStoreEntitlementProvider) {
        self.appStore = appStore
        self.listener = Task {
            for await update in Transaction.updates {
                _ = try? await appStore.record(signedTransaction: update.jwsRepresentation)
                if case .verified(let transaction) = update { await transaction.finish() }
            }
        }
        Task { await self.reloadCurrentEntitlements() }
    }

    deinit { listener.cancel() }

    public var name: String { appStore.name }
    public var changes: AsyncStream<EntitlementChange> { appStore.changes }

    public func access(to product: String) async -> EntitlementAccess {
        await appStore.access(to: product)
    }

    public func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials {
        try await appStore.credentials(for: product)
    }

    /// Replaces what is held with `Transaction.currentEntitlements`; returns the transactions
    /// that failed verification.
    @discardableResult
    public func reloadCurrentEntitlements() async -> [AppStoreVerificationError] {
        var signed: [String] = []
        for await entitlement in Transaction.currentEntitlements { signed.append(entitlement.jwsRepresentation) }
        return await appStore.replaceAll(with: signed)
    }

    /// Restore purchases: `AppStore.sync()` (which may ask the user to sign in), then reload.
    /// - Throws: ``EntitlementError/purchaseCancelled`` when the user cancels the sign-in;
    ///   ``EntitlementError/networkFailure(underlying:)`` otherwise.
    @discardableResult
    public func restore() async throws(EntitlementError) -> [AppStoreVerificationError] {
        do {
            try await AppStore.sync()
        } catch StoreKitError.userCancelled {
            throw .purchaseCancelled
        } catch {
            throw .networkFailure(underlying: error)
        }
        return await reloadCurrentEntitlements()
    }

    /// Records the outcome of the app's own `product.purchase(…)`.
    /// - Throws: ``EntitlementError/purchaseCancelled`` when the user cancelled;
    ///   ``EntitlementError/unknown(reason:status:response:underlying:)`` while it waits for approval
    ///   (Ask to Buy) or when the transaction does not verify.
    @discardableResult
    public func record(_ result: Product.PurchaseResult) async throws(EntitlementError) -> AppStoreTransaction {
        switch result {
        case .success(let verification):
            do {
                let transaction = try await appStore.record(signedTransaction: verification.jwsRepresentation)
                if case .verified(let verified) = verification { await verified.finish() }
                return transaction
            } catch {
                throw .unknown(reason: "the App Store transaction does not verify", underlying: error)
            }
        case .userCancelled:
            throw .purchaseCancelled
        case .pending:
            throw .unknown(reason: "the purchase waits for approval", status: "pending")
        @unknown default:
            throw .unknown(reason: "StoreKit answered a purchase result this build does not know")
        }
    }
}
#endif
