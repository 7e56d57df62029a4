import ClearanceWire

/// `pusher_internal:watchlist_events` data:
/// `{"events":[{"name":"online","user_ids":["b","c"]},{"name":"offline","user_ids":["d"]}]}`,
/// sent as an object or as a string holding one.
///
/// Each usable entry becomes a ``WatchlistEvent``; an entry that is not one (an unknown name,
/// `user_ids` that are not all strings) is skipped and said in ``problems``, and the others
/// still count.
package struct WatchlistEventsFrame: Sendable, Hashable {
    /// The usable entries, in order.
    package let events: [WatchlistEvent]
    /// What was wrong with each skipped entry (no user ids: they are not needed to say what broke).
    package let problems: [String]

    /// Reads the frame's data; nil when there is no `events` array at all.
    package init?(_ frame: IncomingFrame) {
        guard let entries = frame.dataObject?["events"]?.arrayValue else { return nil }
        var events: [WatchlistEvent] = []
        var problems: [String] = []
        for (index, entry) in entries.enumerated() {
            guard let object = entry.objectValue else {
                problems.append("events[\(index)] is not an object")
                continue
            }
            guard let name = object["name"]?.stringValue, let kind = WatchlistEvent.Kind(rawValue: name) else {
                problems.append("events[\(index)].name is not \"online\" or \"offline\"")
                continue
            }
            guard let values = object["user_ids"]?.arrayValue else {
                problems.append("events[\(index)].user_ids is not an array")
                continue
            }
            let userIDs = values.compactMap(\.stringValue)
            guard userIDs.count == values.count else {
                problems.append("events[\(index)].user_ids holds something that is not a string")
                continue
            }
            events.append(WatchlistEvent(kind: kind, userIDs: userIDs))
        }
        self.events = events
        self.problems = problems
    }
}
