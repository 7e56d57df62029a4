import Clearance
import NIOCore

/// The channels to cut at a deadline on the hub's clock: a refused client, or a slow reader,
/// that does not answer the hub's close frame within ``HubConnectionLimits/closeTimeout``.
/// ``Hub/runPendingDisconnects()`` closes the due ones, so this deadline moves with the hub's
/// clock like every other timer of a connection (and a test can move it).
///
/// A channel that closes before its deadline leaves at once; the count is bounded by the
/// sockets the hub accepts (``SocketBudget``).
final class PendingDisconnects: Sendable {
    private struct Entry {
        let channel: any Channel
        let deadline: ContinuousClock.Instant
    }

    private let entries = Locked<[ObjectIdentifier: Entry]>([:])

    /// How many channels wait for their deadline.
    var count: Int { entries.withLock { $0.count } }

    /// Closes `channel` at `deadline` unless it closed before.
    func schedule(_ channel: any Channel, at deadline: ContinuousClock.Instant) {
        let id = ObjectIdentifier(channel)
        let added = entries.withLock { entries -> Bool in
            let known = entries[id]
            if let known, known.deadline <= deadline { return false }
            entries[id] = Entry(channel: channel, deadline: deadline)
            return known == nil
        }
        // One removal per channel, registered when it is first listed.
        guard added else { return }
        channel.closeFuture.whenComplete { [entries] _ in
            _ = entries.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// Closes the channels whose deadline is `now` or earlier.
    func closeDue(at now: ContinuousClock.Instant) {
        let due = entries.withLock { entries -> [any Channel] in
            let due = entries.filter { $0.value.deadline <= now }
            for id in due.keys { entries.removeValue(forKey: id) }
            return due.values.map(\.channel)
        }
        for channel in due { channel.close(promise: nil) }
    }
}
