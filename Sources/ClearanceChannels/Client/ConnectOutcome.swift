import Clearance

/// The first result of a connect attempt (the socket's end, the connect deadline, or
/// cancellation) resumes the waiter; later ones are ignored.
final class ConnectOutcome: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<DisconnectCause, Never>)
        case resolved(DisconnectCause)
        case done
    }
    private let state = Locked(State.empty)

    func install(_ continuation: CheckedContinuation<DisconnectCause, Never>) {
        let early: DisconnectCause? = state.withLock { state in
            if case .resolved(let cause) = state {
                state = .done
                return cause
            }
            state = .waiting(continuation)
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ cause: DisconnectCause) {
        let waiter: CheckedContinuation<DisconnectCause, Never>? = state.withLock { state in
            switch state {
            case .empty:
                state = .resolved(cause)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .resolved, .done:
                return nil
            }
        }
        waiter?.resume(returning: cause)
    }
}
