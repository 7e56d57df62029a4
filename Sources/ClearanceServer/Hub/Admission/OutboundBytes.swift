import Clearance

/// The bytes every WebSocket of the hub has left unsent, together (``HubLimits/maxTotalOutboundBytes``):
/// each connection's sink adds what it hands to its channel and takes back what the socket took,
/// so that clients that stop reading cannot together hold more of the hub's memory than this,
/// however many they are.
///
/// A connection that still reads (its channel writable) counts only the bytes on their way to
/// its channel: the few it leaves in NIO's buffer (under the channel's high-water mark, 64 KiB)
/// are not worth a lock per socket write.
final class OutboundBytes: Sendable {
    let limit: Int
    private let total = Locked(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// The unsent bytes counted now.
    var value: Int { total.withLock { $0 } }

    func add(_ delta: Int) {
        guard delta != 0 else { return }
        total.withLock { $0 += delta }
    }
}
