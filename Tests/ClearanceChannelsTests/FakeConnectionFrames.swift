import Foundation

/// Server frames for ``FakePusherServer`` scripts: sign-in, subscriptions, the watchlist and
/// subscription counts, in the shapes servers send them.
enum FakeConnectionFrames {
    /// `pusher:signin_success` for user `id` (data as an object).
    static func signInSuccess(_ id: String) -> String {
        #"{"event":"pusher:signin_success","data":{"user_data":"{\"id\":\"\#(id)\"}"}}"#
    }

    /// `pusher_internal:subscription_succeeded` on `channel`.
    static func subscribed(_ channel: String) -> String {
        #"{"event":"pusher_internal:subscription_succeeded","channel":"\#(channel)","data":"{}"}"#
    }

    /// `pusher_internal:watchlist_events` with `entries` (name, user ids); its data an object, or
    /// with `dataAsString` a string holding it.
    static func watchlist(_ entries: [(name: String, userIDs: [String])], dataAsString: Bool = false) -> String {
        let data: [String: Any] = ["events": entries.map { ["name": $0.name, "user_ids": $0.userIDs] as [String: Any] }]
        return frame("pusher_internal:watchlist_events", data: data, dataAsString: dataAsString)
    }

    /// `pusher_internal:subscription_count` on `channel`; its data a string holding the object (as
    /// Pusher sends it), or with `dataAsString: false` the object.
    static func subscriptionCount(_ channel: String, _ count: Int, dataAsString: Bool = true) -> String {
        frame("pusher_internal:subscription_count", channel: channel, data: ["subscription_count": count], dataAsString: dataAsString)
    }

    /// A frame with raw `data` JSON text placed as is (malformed data on purpose).
    static func raw(_ event: String, channel: String? = nil, dataJSON: String?) -> String {
        var text = #"{"event":"\#(event)""#
        if let channel { text += #","channel":"\#(channel)""# }
        if let dataJSON { text += #","data":\#(dataJSON)"# }
        return text + "}"
    }

    private static func frame(_ event: String, channel: String? = nil, data: [String: Any], dataAsString: Bool) -> String {
        let dataJSON = String(decoding: try! JSONSerialization.data(withJSONObject: data, options: [.sortedKeys]), as: UTF8.self)
        var object: [String: Any] = ["event": event, "data": dataAsString ? dataJSON as Any : data as Any]
        if let channel { object["channel"] = channel }
        return String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
