import ClearanceSigning
import ClearanceWire

/// The text of every frame the hub sends, in the shapes hosted Pusher uses.
///
/// `data` is a string holding JSON for connection, subscription, presence and HTTP API events
/// (clients decode it a second time), and an object for `pusher:error`,
/// `pusher:subscription_error` and `pusher:signin_success`. Client events carry the sender's
/// `data` unchanged.
package enum PusherFrame {
    static func connectionEstablished(socketID: String, activityTimeout: Int) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher:connection_established")
        frame.stringifiedObject("data") { data in
            data.string("socket_id", socketID)
            data.integer("activity_timeout", activityTimeout)
        }
        return frame.text
    }

    static func error(code: Int?, message: String) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher:error")
        frame.object("data") { data in
            data.raw("code", code.map(String.init) ?? "null")
            data.string("message", message)
        }
        return frame.text
    }

    static func error(_ error: HubProtocolError) -> String {
        Self.error(code: error.code, message: error.message)
    }

    static func error(_ code: HubCloseCode) -> String {
        Self.error(code: Int(code.rawValue), message: code.message)
    }

    /// `pusher:cache_miss`: the cache channel keeps no event.
    static func cacheMiss(channel: String) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher:cache_miss")
        frame.string("channel", channel)
        return frame.text
    }

    static let ping = #"{"event":"pusher:ping","data":"{}"}"#

    static let pong = #"{"event":"pusher:pong","data":"{}"}"#

    /// `pusher_internal:subscription_succeeded`; `members` (presence channels only) become
    /// `{"presence":{"ids":[…],"hash":{id: info},"count":N}}`.
    static func subscriptionSucceeded(channel: String, members: [PresenceMember]?) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher_internal:subscription_succeeded")
        frame.string("channel", channel)
        guard let members else {
            frame.string("data", "{}")
            return frame.text
        }
        var ids: [UInt8] = [UInt8(ascii: "[")]
        var hash = JSONWriter(capacity: 64 * members.count)
        for (index, member) in members.enumerated() {
            if index > 0 { ids.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(member.id, to: &ids)
            hash.raw(member.id, member.infoJSON ?? "null")
        }
        ids.append(UInt8(ascii: "]"))
        let idsText = String(decoding: ids, as: UTF8.self)
        let hashText = hash.text
        frame.stringifiedObject("data") { data in
            data.object("presence") { presence in
                presence.raw("ids", idsText)
                presence.raw("hash", hashText)
                presence.integer("count", members.count)
            }
        }
        return frame.text
    }

    /// `pusher_internal:subscription_succeeded` of a channel with a history: its `stream` and
    /// `serial` now, and `recovered` when the client asked to resume (standard clients ignore
    /// the members they do not know).
    static func subscriptionSucceeded(channel: String, position: ChannelHistory.Position, recovered: Bool?) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher_internal:subscription_succeeded")
        frame.string("channel", channel)
        frame.string("data", "{}")
        frame.string("stream", position.stream)
        frame.integer("serial", position.serial)
        if let recovered { frame.raw("recovered", recovered ? "true" : "false") }
        return frame.text
    }

    static func subscriptionError(channel: String, failure: SubscriptionFailure) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher:subscription_error")
        frame.string("channel", channel)
        frame.object("data") { data in
            data.string("type", failure.type)
            data.string("error", failure.error)
            data.integer("status", failure.status)
        }
        return frame.text
    }

    static func memberAdded(channel: String, member: PresenceMember) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher_internal:member_added")
        frame.string("channel", channel)
        frame.stringifiedObject("data") { data in
            data.string("user_id", member.id)
            if let info = member.infoJSON { data.raw("user_info", info) }
        }
        return frame.text
    }

    static func memberRemoved(channel: String, userID: String) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher_internal:member_removed")
        frame.string("channel", channel)
        frame.stringifiedObject("data") { data in
            data.string("user_id", userID)
        }
        return frame.text
    }

    /// An event from the HTTP API: `data` is the string the server library sent.
    package static func event(name: String, channel: String, data: String) -> String {
        var frame = JSONWriter(capacity: data.utf8.count + name.utf8.count + channel.utf8.count + 48)
        frame.string("event", name)
        frame.string("channel", channel)
        frame.string("data", data)
        return frame.text
    }

    /// A client event: `rawData` is the sender's JSON text; presence channels add `user_id`.
    package static func clientEvent(name: String, channel: String, rawData: String, userID: String?) -> String {
        var frame = JSONWriter(capacity: rawData.utf8.count + name.utf8.count + channel.utf8.count + 64)
        frame.string("event", name)
        frame.string("channel", channel)
        frame.raw("data", rawData)
        frame.optionalString("user_id", userID)
        return frame.text
    }

    /// `pusher_internal:watchlist_events` with an `online` and/or `offline` event (each listed
    /// only when it has users): `data` is an object, as Pusher sends it.
    static func watchlistEvents(online: [String], offline: [String]) -> String {
        func event(_ name: String, _ ids: [String]) -> String {
            var event = JSONWriter()
            event.string("name", name)
            event.raw("user_ids", "[" + ids.map(JSONWriter.quoted).joined(separator: ",") + "]")
            return event.text
        }
        var events: [String] = []
        if !online.isEmpty { events.append(event("online", online)) }
        if !offline.isEmpty { events.append(event("offline", offline)) }
        var frame = JSONWriter()
        frame.string("event", "pusher_internal:watchlist_events")
        frame.object("data") { data in
            data.raw("events", "[" + events.joined(separator: ",") + "]")
        }
        return frame.text
    }

    /// `pusher_internal:subscription_count` on `channel`: `data` a JSON string, as Pusher sends it.
    static func subscriptionCount(channel: String, count: Int) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher_internal:subscription_count")
        frame.string("channel", channel)
        frame.stringifiedObject("data") { data in
            data.integer("subscription_count", count)
        }
        return frame.text
    }

    static func signInSuccess(userData: String) -> String {
        var frame = JSONWriter()
        frame.string("event", "pusher:signin_success")
        frame.object("data") { data in
            data.string("user_data", userData)
        }
        return frame.text
    }
}
