import ClearanceSigning
import ClearanceWire

/// One event to publish, read from an HTTP API body (`/events`, or one item of `/batch_events`).
package struct TriggerEvent: Sendable, Equatable {
    package let name: String
    package let channels: [String]
    package let data: String
    package let excludedSocketID: String?
    package let info: Set<String>

    /// Reads `{"name":…,"data":"…","channels":[…]|"channel":…,"socket_id"?:…,"info"?:…}` and
    /// checks it against `limits`.
    package init(_ members: [String: JSONValue], limits: HubLimits, channelNames: ChannelNameLimits) throws(HTTPAPIError) {
        guard let nameValue = members["name"] else { throw .missingField("name") }
        guard let name = nameValue.stringValue, !name.isEmpty, name.utf8.count <= limits.channels.maxEventNameLength else {
            throw .invalidField("name", reason: "must be a non-empty string of at most \(limits.channels.maxEventNameLength) bytes.")
        }
        guard let dataValue = members["data"] else { throw .missingField("data") }
        guard let data = dataValue.stringValue else { throw .invalidField("data", reason: "must be a string.") }
        guard data.utf8.count <= limits.channels.maxEventDataBytes else { throw .eventTooLarge(limit: limits.channels.maxEventDataBytes) }

        var channels: [String]
        switch (members["channels"], members["channel"]) {
        case let (.array(values)?, nil):
            channels = []
            for value in values {
                guard let channel = value.stringValue else { throw .invalidField("channels", reason: "must hold strings.") }
                channels.append(channel)
            }
        case let (nil, .string(channel)?):
            channels = [channel]
        case (nil, nil):
            throw .missingField("channels")
        default:
            throw .invalidField("channels", reason: "must be an array of names (or 'channel' a single name), not both.")
        }
        guard !channels.isEmpty, channels.count <= limits.httpAPI.maxChannelsPerEvent else {
            throw .invalidField("channels", reason: "must name 1 to \(limits.httpAPI.maxChannelsPerEvent) channels.")
        }
        guard Set(channels).count == channels.count else { throw .invalidField("channels", reason: "names a channel twice.") }
        for channel in channels {
            let kind: ChannelNameKind
            do {
                kind = try channelNames.validate(channel)
            } catch {
                throw .invalidChannel(error)
            }
            if kind == .privateEncrypted, channels.count > 1 {
                throw .invalidField("channels", reason: "cannot mix an encrypted channel with others.")
            }
        }

        var excluded: String?
        switch members["socket_id"] {
        case nil, .null?:
            excluded = nil
        case let .string(socketID)?:
            guard SocketIDFormat.isValid(socketID) else { throw .invalidField("socket_id", reason: "must look like '123.456'.") }
            excluded = socketID
        default:
            throw .invalidField("socket_id", reason: "must be a string.")
        }

        var info = Set<String>()
        switch members["info"] {
        case nil, .null?:
            break
        case let .string(text)?:
            info = Set(text.split(separator: ",").map { String($0) })
            guard info.isSubset(of: ["subscription_count", "user_count"]) else {
                throw .invalidInfo("info may only contain subscription_count and user_count.")
            }
        default:
            throw .invalidField("info", reason: "must be a comma-separated string.")
        }

        self.name = name
        self.channels = channels
        self.data = data
        self.excludedSocketID = excluded
        self.info = info
    }
}
