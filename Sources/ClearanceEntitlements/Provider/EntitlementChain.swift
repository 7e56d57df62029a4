import Clearance

/// Providers asked in order (Pugpig's documented rule): the first that claims a product
/// (answers ``EntitlementAccess/granted`` or ``EntitlementAccess/denied``) decides it; when none
/// does, the last added decides. The chain is itself an ``EntitlementProvider``.
///
/// ```swift
/// let chain = EntitlementChain([pugpig, storeKit])      // the server first, then the App Store
/// if await chain.access(to: "issue-42") == .granted {
///     let credentials = try await chain.credentials(for: "issue-42")   // from the deciding provider
///     try await download("issue-42", credentials)
/// }
/// for await change in chain.changes { print(change) }  // every provider's changes
/// ```
public final class EntitlementChain: EntitlementProvider {
    private struct State {
        var providers: [any EntitlementProvider] = []
        var forwarding: [Task<Void, Never>] = []
    }

    public let name: String
    private let state = Locked(State())
    private let broadcaster = Broadcaster<EntitlementChange>()

    /// A chain of `providers`, asked in this order.
    public init(_ providers: [any EntitlementProvider] = [], name: String = "chain") {
        self.name = name
        for provider in providers { add(provider) }
    }

    deinit {
        for task in state.withLock({ $0.forwarding }) { task.cancel() }
        broadcaster.finish()
    }

    /// Adds `provider` after the others.
    public func add(_ provider: any EntitlementProvider) {
        let changes = provider.changes
        let broadcaster = broadcaster
        let forward = Task { for await change in changes { broadcaster.send(change) } }
        state.withLock { s in
            s.providers.append(provider)
            s.forwarding.append(forward)
        }
    }

    /// The providers, in the order they are asked.
    public var providers: [any EntitlementProvider] { state.withLock { $0.providers } }

    /// The provider that decides `product` and its answer; nil for an empty chain.
    public func decision(for product: String) async -> (provider: any EntitlementProvider, access: EntitlementAccess)? {
        let providers = providers
        guard let last = providers.last else { return nil }
        for provider in providers.dropLast() {
            let access = await provider.access(to: product)
            if access != .notClaimed { return (provider, access) }
        }
        return (last, await last.access(to: product))
    }

    /// The deciding provider's answer; ``EntitlementAccess/notClaimed`` for an empty chain or
    /// when no provider claims `product`.
    public func access(to product: String) async -> EntitlementAccess {
        await decision(for: product)?.access ?? .notClaimed
    }

    /// The deciding provider's credentials.
    /// - Throws: ``EntitlementError/productUnavailable(product:message:)`` for an empty chain;
    ///   otherwise what the deciding provider throws.
    public func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials {
        guard let decided = await decision(for: product) else {
            throw .productUnavailable(product: product, message: "no entitlement provider is configured")
        }
        return try await decided.provider.credentials(for: product)
    }

    /// Every provider's changes, from now on.
    public var changes: AsyncStream<EntitlementChange> { broadcaster.subscribe() }
}
