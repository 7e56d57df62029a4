import Foundation

/// A frame from the hub, decoded for assertions.
struct ReceivedFrame: Sendable, CustomStringConvertible {
    let text: String

    private var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    var event: String? { object["event"] as? String }
    var channel: String? { object["channel"] as? String }
    var userID: String? { object["user_id"] as? String }
    /// A channel history's members (`serial`, `stream`; `recovered` on `subscription_succeeded`).
    var serial: Int? { object["serial"] as? Int }
    var stream: String? { object["stream"] as? String }
    var recovered: Bool? { object["recovered"] as? Bool }

    /// Whether the frame has a top-level member `name`.
    func has(_ name: String) -> Bool { object[name] != nil }

    /// `data`, decoded a second time when it is a string holding JSON.
    var data: Any? {
        guard let data = object["data"] else { return nil }
        if let string = data as? String, let decoded = try? JSONSerialization.jsonObject(with: Data(string.utf8), options: [.fragmentsAllowed]) {
            return decoded
        }
        return data
    }

    /// `data` as an object (after the second decoding when needed).
    var dataObject: [String: Any] { data as? [String: Any] ?? [:] }

    /// The raw `data` member: a string stays a string.
    var rawData: Any? { object["data"] }

    /// `pusher:error` code (`nil` for `"code": null`).
    var errorCode: Int? { dataObject["code"] as? Int }

    var description: String { text }
}
