import Clearance

/// Turns a call-once completion handler into an `async` call that honours cancellation and
/// ignores a second call.
enum CompletionBridge {
    static func run<Value: Sendable>(
        _ start: (@escaping @Sendable (Value?, (any Error)?) -> Void) -> Void
    ) async throws -> Value {
        let first = FirstResult<Value, any Error>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                first.install(continuation)
                // Cancelled already: `onCancel` has answered (or is answering); the app is not asked.
                if Task.isCancelled { return }
                start { value, error in
                    first.resume(with: value.map { .success($0) } ?? .failure(error ?? ChannelAuthorizationError.denied(reason: nil)))
                }
            }
        } onCancel: {
            first.resume(with: .failure(CancellationError()))
        }
    }
}
