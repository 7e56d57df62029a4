import ClearanceServer
import ClearanceSigning
import ClearanceWire
import Foundation

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
    /// Close every connection of the app signed in as the user (the app's terminate_connections).
    case terminate(appID: String, userID: String)
    /// An event triggered on a cache channel: delivered to the channel's subscribers on every node
    /// (except the socket `excluding`) and kept by every node as the channel's last event.
    case triggered(appID: String, channel: String, entry: EventCache.Entry, excluding: String?)
    /// A cache channel's last event, kept and not delivered (part of a node's whole state).
    case cached(appID: String, channel: String, entry: EventCache.Entry)

    /// Whether this is an ``event`` or a ``terminate``: something done once, which changes no
    /// node's state (dropping one needs no resynchronization).
    var isEvent: Bool {
        switch self {
        case .event, .terminate, .triggered, .cached: true
        default: false
        }
    }

    /// The app an event is of (``event`` and ``triggered``: what an app's clients and backend
    /// can send in floods, and what a full queue may drop); nil for the others.
    var floodingAppID: String? {
        switch self {
        case let .event(appID, _, _, _), let .triggered(appID, _, _, _): appID
        default: nil
        }
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
        case let .change(.userOnline(user)), let .change(.userOffline(user)):
            if case .change(.userOnline) = self { writer.string("k", "online") } else { writer.string("k", "offline") }
            writer.string("a", user.appID)
            writer.string("u", user.userID)
        case .hello: writer.string("k", "hello")
        case .syncBegin: writer.string("k", "sync-begin")
        case .syncEnd: writer.string("k", "sync-end")
        case .bye: writer.string("k", "bye")
        case let .terminate(appID, userID):
            writer.string("k", "terminate")
            writer.string("a", appID)
            writer.string("u", userID)
        case let .triggered(appID, channel, entry, excluded):
            writer.string("k", "triggered")
            Self.write(appID: appID, channel: channel, entry: entry, to: &writer)
            writer.optionalString("x", excluded)
        case let .cached(appID, channel, entry):
            writer.string("k", "cached")
            Self.write(appID: appID, channel: channel, entry: entry, to: &writer)
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
        case "online", "offline":
            guard let appID = text("a"), let userID = text("u") else { return nil }
            let user = OnlineUsers.UserKey(appID: appID, userID: userID)
            self = .change(kind == "online" ? .userOnline(user) : .userOffline(user))
        case "hello": self = .hello
        case "sync-begin": self = .syncBegin
        case "sync-end": self = .syncEnd
        case "bye": self = .bye
        case "terminate":
            guard let appID = text("a"), let userID = text("u") else { return nil }
            self = .terminate(appID: appID, userID: userID)
        case "triggered", "cached":
            guard let appID = text("a"), let channel = text("c"), let frame = text("f"),
                  let triggered = object["t"]?.intValue, let expires = object["e"]?.intValue
            else { return nil }
            let entry = EventCache.Entry(
                frame: frame, triggeredAt: Date(timeIntervalSince1970: Double(triggered) / 1_000),
                expiresAt: Date(timeIntervalSince1970: Double(expires) / 1_000))
            self = kind == "cached"
                ? .cached(appID: appID, channel: channel, entry: entry)
                : .triggered(appID: appID, channel: channel, entry: entry, excluding: text("x"))
        default: return nil
        }
    }

    /// A cache entry's fields: its times in milliseconds since 1970.
    private static func write(appID: String, channel: String, entry: EventCache.Entry, to writer: inout JSONWriter) {
        writer.string("a", appID)
        writer.string("c", channel)
        writer.string("f", entry.frame)
        writer.integer("t", Int((entry.triggeredAt.timeIntervalSince1970 * 1_000).rounded()))
        writer.integer("e", Int((entry.expiresAt.timeIntervalSince1970 * 1_000).rounded()))
    }
}
