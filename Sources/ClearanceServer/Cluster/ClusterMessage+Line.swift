import ClearanceSigning
import ClearanceWire
import Foundation

/// One message per line, as JSON with one-letter members: how every transport carries them.
extension ClusterMessage {
    /// The line that carries this message.
    public var line: String {
        var writer = JSONWriter()
        switch kind {
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
            if case .change(.userOnline) = kind { writer.string("k", "online") } else { writer.string("k", "offline") }
            writer.string("a", user.appID)
            writer.string("u", user.userID)
        case .hello: writer.string("k", "hello")
        case .syncBegin: writer.string("k", "sync-begin")
        case .syncEnd: writer.string("k", "sync-end")
        case .bye: writer.string("k", "bye")
        case let .terminate(termination):
            writer.string("k", "terminate")
            writer.string("a", termination.appID)
            writer.string("u", termination.userID)
            writer.integer("g", Int((termination.gracePeriod * 1_000).rounded()))
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
    public init?(line: Substring) {
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
            let grace = object["g"]?.intValue.map { Double($0) / 1_000 } ?? 60
            self = .terminate(appID: appID, userID: userID, gracePeriod: max(0, grace))
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
