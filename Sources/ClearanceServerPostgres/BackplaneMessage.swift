import ClearanceServer
import ClearanceSigning
import ClearanceWire

/// What one node tells the others, one JSON object per line of a NOTIFY payload.
///
/// A node's state travels as ``ChannelTable/Change``s: absolute subscription counts and presence
/// arrivals and departures, so applying one twice does no harm. After it (re)connects, a node
/// says ``hello`` (every node answers with its whole state) and sends its own whole state
/// between ``syncBegin`` and ``syncEnd``, which replaces whatever the others knew of it.
enum BackplaneMessage: Sendable, Equatable {
    /// A frame for the channel's subscribers on every node, except the socket `excluding`.
    case event(appID: String, channel: String, frame: String, excluding: String?)
    /// A change of the sender's own state.
    case change(ChannelTable.Change)
    /// The sender (re)connected: every node sends its whole state.
    case hello
    /// What follows, until ``syncEnd``, is the sender's whole state.
    case syncBegin
    /// The end of the sender's whole state.
    case syncEnd
    /// The sender leaves the cluster: forget its state.
    case bye

    /// Whether this is an ``event``: a delivery, which changes no node's state.
    var isEvent: Bool {
        if case .event = self { true } else { false }
    }

    /// The line that carries this message.
    var line: String {
        var writer = JSONWriter()
        switch self {
        case let .event(appID, channel, frame, excluded):
            writer.string("k", "event")
            writer.string("a", appID)
            writer.string("c", channel)
            writer.string("f", frame)
            writer.optionalString("x", excluded)
        case let .change(.subscriptions(key, count)):
            writer.string("k", "sub")
            writer.string("a", key.appID)
            writer.string("c", key.name)
            writer.integer("n", count)
        case let .change(.memberJoined(key, member)):
            writer.string("k", "join")
            writer.string("a", key.appID)
            writer.string("c", key.name)
            writer.string("u", member.id)
            writer.optionalString("i", member.infoJSON)
        case let .change(.memberLeft(key, userID)):
            writer.string("k", "leave")
            writer.string("a", key.appID)
            writer.string("c", key.name)
            writer.string("u", userID)
        case .hello: writer.string("k", "hello")
        case .syncBegin: writer.string("k", "sync-begin")
        case .syncEnd: writer.string("k", "sync-end")
        case .bye: writer.string("k", "bye")
        }
        return writer.text
    }

    /// Reads one line; `nil` for a line this version does not understand (a newer node's).
    init?(line: Substring) {
        guard let object = try? JSONScanner.parse(String(line)).objectValue, let kind = object["k"]?.stringValue else { return nil }
        func text(_ name: String) -> String? { object[name]?.stringValue }
        var key: ChannelTable.Key? {
            guard let appID = text("a"), let channel = text("c") else { return nil }
            return ChannelTable.Key(appID: appID, name: channel)
        }
        switch kind {
        case "event":
            guard let appID = text("a"), let channel = text("c"), let frame = text("f") else { return nil }
            self = .event(appID: appID, channel: channel, frame: frame, excluding: text("x"))
        case "sub":
            guard let key, let count = object["n"]?.intValue, count >= 0 else { return nil }
            self = .change(.subscriptions(key, count: count))
        case "join":
            guard let key, let userID = text("u") else { return nil }
            self = .change(.memberJoined(key, PresenceMember(id: userID, infoJSON: text("i"))))
        case "leave":
            guard let key, let userID = text("u") else { return nil }
            self = .change(.memberLeft(key, userID: userID))
        case "hello": self = .hello
        case "sync-begin": self = .syncBegin
        case "sync-end": self = .syncEnd
        case "bye": self = .bye
        default: return nil
        }
    }
}
