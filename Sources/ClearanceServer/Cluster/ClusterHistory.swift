import ClearanceWire

/// Where a cluster keeps its channels' histories (connection recovery), shared by every node:
/// serials are given once per channel for the whole cluster, and any node replays what a client
/// missed, also after the node that took the event died. `PostgresHistory` (the
/// ClearanceServerPostgres module) is one; a ``ClusterDrivers`` without one refuses apps with a
/// `history`.
///
/// Each node also keeps the events that reach it in its own ``ChannelHistory`` (a cache of the
/// cluster's, in serial order): a node delivers a channel's events in serial order, one that
/// arrives ahead of an earlier one waiting for it (``ChannelTable/accept(_:)``), and reads here
/// what never arrived.
package protocol ClusterHistory: Sendable {
    /// Keeps `frame` (an event frame, a JSON object's text) as the channel's next event, and
    /// returns its position: committed when this returns, so that every node replays it even if
    /// this one dies at once. The channel keeps at most `configuration.size` events.
    /// `excluding` is the socket that must not get it (a client event's sender).
    func append(
        _ frame: String, appID: String, channel: String, excluding: String?, keeping configuration: ChannelHistoryConfiguration
    ) async throws -> HistoryPosition

    /// The channel's position now (a stream made when it has none) and, when `after` is in that
    /// stream and not ahead of it, the events after it still kept (younger than `ttl`), in
    /// serial order, up to the position.
    func read(appID: String, channel: String, after: HistoryPosition?, keeping configuration: ChannelHistoryConfiguration) async throws
        -> ClusterHistoryRead

    /// Drops what `settings` no longer keeps (events past `ttl`, streams idle for longer, the
    /// oldest events past the bounds of bytes), and keeps the streams in `subscribed` (channels
    /// with a subscriber on this node) from going idle; returns their positions now, so that a
    /// node finds a channel whose last events never reached it. The hub calls it every few seconds.
    func maintain(_ settings: ChannelHistory.Settings, subscribed: [ChannelTable.Key]) async throws -> [ChannelTable.Key: HistoryPosition]
}

/// What ``ClusterHistory/read(appID:channel:after:keeping:)`` found.
package struct ClusterHistoryRead: Sendable, Equatable {
    /// An event as kept: its serial, its frame without its position, and the socket that must
    /// not get it.
    package struct Event: Sendable, Equatable {
        package let serial: Int
        package let frame: String
        package let excluding: String?

        package init(serial: Int, frame: String, excluding: String? = nil) {
            self.serial = serial
            self.frame = frame
            self.excluding = excluding
        }
    }

    /// The channel's stream and its last serial.
    package let position: HistoryPosition
    /// The events after the position asked about, in serial order (a gap where one is no longer kept).
    package let events: [Event]

    package init(position: HistoryPosition, events: [Event]) {
        self.position = position
        self.events = events
    }
}
