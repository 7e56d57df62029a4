import ClearanceWire

/// A frame a client sent, decoded.
///
/// `data` may be an object or a string holding JSON (clients differ); both are accepted for
/// the `pusher:` events. Client events keep their `data` as the exact JSON text the client
/// sent, so receivers get it unchanged.
package enum ClientMessage: Sendable, Equatable {
    case ping
    case pong
    /// `resume`: the client's last position in the channel's history (`"resume": {"stream": …,
    /// "serial": N}` beside `channel`), when it asks for the events it missed.
    case subscribe(channel: String, auth: String?, channelData: String?, resume: ChannelHistory.Position?)
    case unsubscribe(channel: String)
    case signIn(auth: String, userData: String)
    /// `data` is raw JSON text; `dataBytes` is what counts against the size limit (a string's
    /// UTF-8 length, else the JSON text's length).
    case clientEvent(name: String, channel: String, data: String, dataBytes: Int)

    static let clientEventPrefix = "client-"

    /// Decodes one text frame.
    package static func parse(_ text: String) throws(HubProtocolError) -> ClientMessage {
        let members: [String: JSONScanner.Member]
        do {
            members = try JSONScanner.parseObjectMembers(text)
        } catch .notAnObject {
            throw .notAnObject
        } catch {
            throw .invalidJSON
        }
        guard let event = members["event"]?.value.stringValue else { throw .missingEvent }
        let data = members["data"]

        switch event {
        case "pusher:ping":
            return .ping
        case "pusher:pong":
            return .pong
        case "pusher:subscribe":
            let fields = try objectFields(of: data)
            return .subscribe(
                channel: try requiredString("channel", in: fields),
                auth: try optionalString("auth", in: fields),
                channelData: try optionalString("channel_data", in: fields),
                resume: try resumePosition(in: fields)
            )
        case "pusher:unsubscribe":
            let fields = try objectFields(of: data)
            return .unsubscribe(channel: try requiredString("channel", in: fields))
        case "pusher:signin":
            let fields = try objectFields(of: data)
            return .signIn(
                auth: try requiredString("auth", in: fields),
                userData: try requiredString("user_data", in: fields)
            )
        default:
            guard event.hasPrefix(clientEventPrefix) else { throw .unsupportedEvent }
            guard let channelValue = members["channel"]?.value else { throw .missingField("channel") }
            guard let channel = channelValue.stringValue else { throw .invalidField("channel") }
            let raw = data?.rawText ?? "null"
            let size = data?.value.stringValue?.utf8.count ?? raw.utf8.count
            return .clientEvent(name: event, channel: channel, data: raw, dataBytes: size)
        }
    }

    /// The members of `data`, which must be an object or a string holding one.
    private static func objectFields(of data: JSONScanner.Member?) throws(HubProtocolError) -> [String: JSONValue] {
        guard let data else { throw .missingField("data") }
        switch data.value {
        case let .object(fields):
            return fields
        case let .string(text):
            do {
                guard let fields = try JSONScanner.parse(text).objectValue else { throw HubProtocolError.invalidField("data") }
                return fields
            } catch {
                throw .invalidField("data")
            }
        default:
            throw .invalidField("data")
        }
    }

    private static func requiredString(_ name: String, in fields: [String: JSONValue]) throws(HubProtocolError) -> String {
        guard let value = fields[name] else { throw .missingField(name) }
        guard let string = value.stringValue else { throw .invalidField(name) }
        return string
    }

    /// The longest stream name a resume may give (the hub's are far shorter).
    static let maxStreamLength = 128

    /// `"resume": {"stream": "…", "serial": N}`: a stream name and a whole number from 0; absent or
    /// null: none.
    private static func resumePosition(in fields: [String: JSONValue]) throws(HubProtocolError) -> ChannelHistory.Position? {
        switch fields["resume"] {
        case nil, .null?:
            return nil
        case let .object(members)?:
            guard members.count == 2, let position = HistoryPosition(stream: members["stream"], serial: members["serial"]),
                  position.stream.utf8.count <= maxStreamLength
            else { throw .invalidResume }
            return position
        default:
            throw .invalidResume
        }
    }

    private static func optionalString(_ name: String, in fields: [String: JSONValue]) throws(HubProtocolError) -> String? {
        switch fields[name] {
        case nil, .null?: return nil
        case let .string(value)?: return value
        default: throw .invalidField(name)
        }
    }
}
