import ClearanceServer
import ClearanceSigning
import ClearanceWire
import Foundation

extension FuzzTarget {
    /// A Pusher HTTP API request as the hub reads it: the first line is the query string (read
    /// with `RESTRequestParameters`, checked with `RESTRequestVerifier`), the rest the body
    /// (`/events` and `/batch_events`, read into `TriggerEvent`s).
    ///
    /// Invariants: a request the signer signs for these parameters and body verifies once its
    /// query is encoded, and what the verifier returns is exactly what was signed; an accepted
    /// event is within every limit.
    static let httpAPI = FuzzTarget(name: "http-api", summary: "HTTP API query (RESTRequestParameters, RESTRequestVerifier) and bodies (TriggerEvent)") { data throws(FuzzViolation) in
        let newline = data.firstIndex(of: UInt8(ascii: "\n")) ?? data.endIndex
        let query = String(decoding: data[data.startIndex..<newline], as: UTF8.self)
        let body = Data(data[newline...].dropFirst())
        try HTTPAPIFuzzing.checkQuery(query, body: body)
        try HTTPAPIFuzzing.checkBody(body)
    }
}

enum HTTPAPIFuzzing {
    static let path = "/apps/1/events"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let limits = HubLimits()
    static let verifier: RESTRequestVerifier = {
        do { return try RESTRequestVerifier(key: "fuzz-key", secret: "fuzz-secret") } catch { preconditionFailure("\(error)") }
    }()
    static let signer: RESTRequestSigner = {
        do { return try RESTRequestSigner(appID: "1", key: "fuzz-key", secret: "fuzz-secret") } catch { preconditionFailure("\(error)") }
    }()

    static func checkQuery(_ query: String, body: Data) throws(FuzzViolation) {
        _ = try? verifier.verify(method: "POST", path: path, percentEncodedQuery: query, body: body, now: now)
        guard let parameters = try? RESTRequestParameters(percentEncodedQuery: query),
              let signature = try? signer.sign(method: "POST", path: path, query: parameters.all, body: body, now: now)
        else { return }
        let verified = try? verifier.verify(method: "POST", path: path, percentEncodedQuery: signature.percentEncodedQuery, body: body, now: now)
        try FuzzViolation.require(verified != nil, "a signed request does not verify: \(signature.stringToSign)")
        try FuzzViolation.require(verified?.parameters.all == signature.queryParameters, "what was verified is not what was signed: \(signature.percentEncodedQuery)")
    }

    static func checkBody(_ body: Data) throws(FuzzViolation) {
        guard let text = String(data: body, encoding: .utf8), let members = (try? JSONScanner.parse(text))?.objectValue else { return }
        try check(members)
        if case let .array(items)? = members["batch"] {
            for case let .object(item) in items { try check(item) }
        }
    }

    private static func check(_ members: [String: JSONValue]) throws(FuzzViolation) {
        guard let event = try? TriggerEvent(members, limits: limits, channelNames: .default) else { return }
        try FuzzViolation.require(!event.name.isEmpty && event.name.utf8.count <= limits.channels.maxEventNameLength, "event name out of limits")
        try FuzzViolation.require(event.data.utf8.count <= limits.channels.maxEventDataBytes, "event data over the limit")
        try FuzzViolation.require(!event.channels.isEmpty && event.channels.count <= limits.httpAPI.maxChannelsPerEvent, "channel count out of limits")
        try FuzzViolation.require(Set(event.channels).count == event.channels.count, "a channel named twice")
        for channel in event.channels {
            try FuzzViolation.require(ChannelNameLimits.default.isValid(channel), "accepted channel name \(channel)")
        }
        try FuzzViolation.require(event.excludedSocketID.map(SocketIDFormat.isValid) ?? true, "accepted socket_id")
    }
}
