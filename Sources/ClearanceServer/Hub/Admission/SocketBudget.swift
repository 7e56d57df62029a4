import Clearance

/// The sockets the hub holds open, counted from the moment they are accepted (WebSocket or
/// plain HTTP alike) to the moment they close, against three limits: the descriptor budget, the
/// sockets that are not WebSockets (``HubHTTPAPILimits/maxHTTPConnections``) and the sockets of one
/// address (``HubConnectionLimits/maxConnectionsPerIP``). A socket past any of them is refused at once,
/// before it costs anything but its descriptor for an instant.
final class SocketBudget: Sendable {
    /// The limits it counts against.
    struct Limits: Sendable, Equatable {
        /// Sockets of any kind (the descriptor budget).
        var sockets: Int
        /// Sockets that are not (yet) WebSockets.
        var httpSockets: Int
        /// Sockets of one address; `nil`: no limit.
        var perAddress: Int?
    }

    private struct State {
        var open = 0
        var http = 0
        var byAddress: [String: Int] = [:]
    }

    let limits: Limits
    private let state = Locked(State())

    init(limits: Limits) {
        self.limits = limits
    }

    /// Sockets open now.
    var openSockets: Int { state.withLock { $0.open } }

    /// Counts a socket just accepted from `address` (as not yet a WebSocket), or says why it
    /// must be closed (then nothing is counted).
    func admit(address: String?) -> SocketRefusal? {
        state.withLock { state in
            if state.open >= limits.sockets { return .descriptorBudget }
            if state.http >= limits.httpSockets { return .httpConnections }
            if let perAddress = limits.perAddress, let address, state.byAddress[address, default: 0] >= perAddress { return .address }
            state.open += 1
            state.http += 1
            if limits.perAddress != nil, let address { state.byAddress[address, default: 0] += 1 }
            return nil
        }
    }

    /// A socket admitted by ``admit(address:)`` became a WebSocket: it no longer counts against
    /// ``Limits/httpSockets``.
    func upgraded() {
        state.withLock { $0.http -= 1 }
    }

    /// A socket counted by ``upgraded()`` did not become a WebSocket after all (it is closed as
    /// a plain HTTP socket): it counts against ``Limits/httpSockets`` again until then.
    func upgradeFailed() {
        state.withLock { $0.http += 1 }
    }

    /// A socket admitted by ``admit(address:)`` closed.
    func released(address: String?, upgraded: Bool) {
        state.withLock { state in
            state.open -= 1
            if !upgraded { state.http -= 1 }
            guard limits.perAddress != nil, let address, let count = state.byAddress[address] else { return }
            state.byAddress[address] = count > 1 ? count - 1 : nil
        }
    }
}
