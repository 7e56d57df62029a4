import Clearance

/// A quantity the whole hub shares against one limit, so that what it costs is bounded however
/// many connections share it:
/// - the subscriptions held (``HubChannelLimits/maxSubscriptions``): a connection ``take(_:)``s one
///   before it subscribes (refused at the limit) and gives it back (``add(_:)`` with a negative
///   amount) when it leaves the channel or closes;
/// - the bytes every WebSocket has left unsent (``HubConnectionLimits/maxTotalOutboundBytes``): each sink
///   ``add(_:)``s what it hands to its channel and takes back what the socket took; a sink checks
///   ``value`` against ``limit`` itself, since what passes it closes a lagging connection rather
///   than refusing a byte.
final class HubBudget: Sendable {
    let limit: Int
    private let used = Locked(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// What is counted now.
    var value: Int { used.withLock { $0 } }

    /// Counts `amount` more unless that would pass ``limit``; false (nothing counted) when it would.
    func take(_ amount: Int = 1) -> Bool {
        used.withLock { used in
            guard used + amount <= limit else { return false }
            used += amount
            return true
        }
    }

    /// Counts `delta` (negative to give back), whatever the limit.
    func add(_ delta: Int) {
        guard delta != 0 else { return }
        used.withLock { $0 += delta }
    }
}
