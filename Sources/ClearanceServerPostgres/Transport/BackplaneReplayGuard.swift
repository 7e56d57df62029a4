import Foundation

/// Refuses a sealed message seen before: a role that can `LISTEN` and `pg_notify` cannot forge a
/// message, but it could send a captured one again (an old event delivered twice, an old
/// `leave` undoing a later `join`).
///
/// Each node numbers what it sends; a message must carry a higher number than the last one
/// accepted from its node. The first message from a node must have been sealed within
/// ``window`` of this node's clock (nodes' clocks must agree that closely), and a node's last
/// number is remembered until it has been silent for that long, so that no message older than
/// the window can come back.
struct BackplaneReplayGuard: Sendable {
    /// Why a message was refused.
    enum Refusal: String, Sendable, Equatable {
        /// Its number is not above the last one accepted from its node.
        case replayed
        /// The first message from a node, sealed too long ago (or too far ahead).
        case stale
    }

    /// How far a node's first message may be from this node's clock.
    let window: TimeInterval
    private var last: [String: (sequence: UInt64, heardAt: Date)] = [:]

    init(window: TimeInterval = 300) {
        self.window = window
    }

    /// Whether `node`'s message `sequence`, sealed at `sentAt`, is new; records it when it is.
    mutating func admit(node: String, sequence: UInt64, sentAt: Date, now: Date) -> Refusal? {
        if let known = last[node], now.timeIntervalSince(known.heardAt) < window {
            guard sequence > known.sequence else { return .replayed }
        } else {
            guard abs(now.timeIntervalSince(sentAt)) <= window else { return .stale }
            if let known = last[node], sequence <= known.sequence { return .replayed }
        }
        last[node] = (sequence, now)
        if last.count > 64 { last = last.filter { now.timeIntervalSince($0.value.heardAt) < 2 * window } }
        return nil
    }
}
