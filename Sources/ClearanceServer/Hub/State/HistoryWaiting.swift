/// A channel's events of a cluster's history that reached this node ahead of an earlier one:
/// they wait for it (from another node, or read from the cluster's history) so that subscribers
/// get the channel's events in serial order. Bounded: past ``maxEvents`` or ``maxBytes`` the
/// channel's subscribers here are closed with 4200 and resume (``ChannelTable/accept(_:)``).
package struct HistoryWaiting: Sendable {
    /// The most events a channel holds waiting.
    package static let maxEvents = 1_000
    /// The most bytes of frames a channel holds waiting.
    package static let maxBytes = 4 << 20

    package private(set) var events: [Int: ChannelTable.KeptEvent] = [:]
    package private(set) var bytes = 0
    /// When the first of them arrived: the hub reads the missing one from the cluster's history
    /// once it has waited a round of its purge.
    package let since: ContinuousClock.Instant

    package init(since: ContinuousClock.Instant) {
        self.since = since
    }

    /// Whether the channel holds more than it may.
    package var overflows: Bool { events.count > Self.maxEvents || bytes > Self.maxBytes }

    /// The first serial waiting.
    package var first: Int? { events.keys.min() }

    package mutating func insert(_ event: ChannelTable.KeptEvent) {
        guard events[event.position.serial] == nil else { return }
        events[event.position.serial] = event
        bytes += event.frame.bytes.readableBytes
    }

    /// Takes the event `serial`, if it waits.
    package mutating func take(_ serial: Int) -> ChannelTable.KeptEvent? {
        guard let event = events.removeValue(forKey: serial) else { return nil }
        bytes -= event.frame.bytes.readableBytes
        return event
    }
}
