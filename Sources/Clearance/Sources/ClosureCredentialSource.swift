import Dispatch

/// A source backed by the app's own code: an `async` closure, or a synchronous one that may
/// block (Bloomreach's `getAuthorizationToken()`), which then runs on a dedicated dispatch queue,
/// off Swift's cooperative thread pool, so it cannot starve other tasks.
///
/// A closure that returns `nil` or an empty credential yields
/// ``AuthorizationError/missingCredential(source:underlying:)``: the request is never sent
/// unauthenticated.
public struct ClosureCredentialSource: CredentialSource {
    /// The name used in errors and logs.
    public let name: String
    private let fetch: @Sendable () async throws -> Credential?

    /// A source that awaits `fetch` for every credential.
    public init(name: String = "closure", _ fetch: @escaping @Sendable () async throws -> Credential?) {
        self.name = name
        self.fetch = fetch
    }

    /// A source that calls a synchronous, possibly blocking `fetch` on a dedicated queue.
    /// Cancelling the caller stops the wait at once (the closure itself runs to completion).
    public static func blocking(name: String = "closure", _ fetch: @escaping @Sendable () throws -> Credential?) -> ClosureCredentialSource {
        ClosureCredentialSource(name: name) { try await BlockingWork.run(fetch) }
    }

    /// A source for a provider of bare bearer tokens (e.g. a customer JWT), wrapped as `Bearer <token>`.
    public static func bearerToken(name: String = "customer-token", _ token: @escaping @Sendable () async throws -> String?) -> ClosureCredentialSource {
        ClosureCredentialSource(name: name) { try await token().map { Credential.bearer($0) } }
    }

    public func credential() async throws(AuthorizationError) -> Credential {
        let result: Credential?
        do {
            result = try await fetch()
        } catch let error as AuthorizationError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .missingCredential(source: name, underlying: error)
        }
        guard let result else { throw .missingCredential(source: name) }
        return try result.validated(source: name)
    }
}

/// Runs synchronous, possibly blocking work on a dedicated concurrent dispatch queue.
enum BlockingWork {
    static let queue = DispatchQueue(label: "clearance.blocking-credential-sources", qos: .userInitiated, attributes: .concurrent)

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let first = FirstResult<T, any Error>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                first.install(continuation)
                // Cancelled already: `onCancel` has answered (or is answering); the work is not started.
                if Task.isCancelled { return }
                queue.async { first.resume(with: Result { try work() }) }
            }
        } onCancel: {
            first.resume(with: .failure(CancellationError()))
        }
    }
}
