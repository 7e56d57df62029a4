/// Turns a call-once completion handler into an `async` call that honours cancellation and
/// ignores a second call.
enum CompletionBridge {
    static func run<Value: Sendable>(
        _ start: (@escaping @Sendable (Value?, (any Error)?) -> Void) -> Void
    ) async throws -> Value {
        let slot = ContinuationSlot<Value>()
        @Sendable func finish(_ result: Result<Value, any Error>) {
            slot.take()?.resume(with: result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                slot.set(continuation)
                if Task.isCancelled { return finish(.failure(CancellationError())) }
                start { value, error in
                    if let value { finish(.success(value)) } else { finish(.failure(error ?? ChannelAuthorizationError.denied(reason: nil))) }
                }
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }
}
