/// A continuation resumed by the first of several racing outcomes (a result, a deadline, a
/// cancellation, a closed connection); later ones are ignored. The outcome may come before the
/// waiter installs its continuation: it is kept until then.
///
/// ```swift
/// let first = FirstResult<URL, any Error>()
/// let url = try await withCheckedThrowingContinuation { continuation in
///     first.install(continuation)
///     first.resume(with: .success(redirect))        // a deadline or a cancellation may race it: the first wins
/// }
/// ```
package final class FirstResult<Value: Sendable, Failure: Error>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, Failure>)
        case resolved(Result<Value, Failure>)
        case done
    }

    private let state = Locked(State.empty)

    package init() {}

    /// The waiter's continuation: resumed at once when an outcome already came.
    package func install(_ continuation: CheckedContinuation<Value, Failure>) {
        let early: Result<Value, Failure>? = state.withLock { state in
            if case let .resolved(result) = state {
                state = .done
                return result
            }
            state = .waiting(continuation)
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// An outcome: resumes the waiter if it is the first.
    package func resume(with result: Result<Value, Failure>) {
        let waiter: CheckedContinuation<Value, Failure>? = state.withLock { state in
            switch state {
            case .empty:
                state = .resolved(result)
                return nil
            case let .waiting(continuation):
                state = .done
                return continuation
            case .resolved, .done:
                return nil
            }
        }
        waiter?.resume(with: result)
    }
}

extension FirstResult where Failure == Never {
    /// A value as the outcome.
    package func resume(_ value: Value) {
        resume(with: .success(value))
    }
}
