/// Decides what a user may read and hands over the credentials to fetch it: Pugpig's
/// `KGAuthorisation`, done with Swift concurrency.
///
/// Implementations: ``PugpigEntitlementProvider`` (Pugpig's subscription API), ``EntitlementChain``
/// (providers in order), a StoreKit provider on Apple platforms (`ClearanceAppStore`), or the app's own.
///
/// Calls never block the caller's thread: they are `async`, and the completion-handler forms
/// (``access(to:completion:)``, ``credentials(for:completion:)``) return at once and call back
/// from a task.
public protocol EntitlementProvider: Sendable {
    /// A name for logs and change events ("pugpig", "storekit").
    var name: String { get }

    /// May the user read `product`? ``EntitlementAccess/notClaimed`` when it is not this
    /// provider's to decide.
    func access(to product: String) async -> EntitlementAccess

    /// The credentials for fetching `product`.
    func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials

    /// Changes in what the provider grants, from now on (an empty stream for providers that
    /// never change by themselves).
    var changes: AsyncStream<EntitlementChange> { get }
}

extension EntitlementProvider {
    public var name: String { String(describing: Self.self) }

    public var changes: AsyncStream<EntitlementChange> { AsyncStream { $0.finish() } }

    /// ``access(to:)`` for callers that are not async: returns at once; `completion` is called
    /// from a task (not on the caller's thread or queue). Cancel the returned task to stop waiting.
    @discardableResult
    public func access(to product: String, completion: @escaping @Sendable (EntitlementAccess) -> Void) -> Task<Void, Never> {
        Task { completion(await access(to: product)) }
    }

    /// ``credentials(for:)`` for callers that are not async: returns at once; `completion` is
    /// called from a task (not on the caller's thread or queue). Cancel the returned task to stop waiting.
    @discardableResult
    public func credentials(for product: String, completion: @escaping @Sendable (Result<ContentCredentials, EntitlementError>) -> Void) -> Task<Void, Never> {
        Task {
            do throws(EntitlementError) {
                completion(.success(try await credentials(for: product)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
