import Clearance
import ClearanceWire
import Foundation

/// What an auth endpoint answered: its status and whole body.
struct AuthEndpointAnswer: Sendable {
    let status: Int
    let body: Data
    /// The answer as errors keep it (status, challenges, redacted snippet, bounded body).
    let kept: @Sendable () -> HTTPErrorResponse

    init(status: Int, body: Data, kept: @escaping @Sendable () -> HTTPErrorResponse) {
        self.status = status
        self.body = body
        self.kept = kept
    }

    /// An answer with no headers worth keeping (a batch entry).
    init(status: Int, body: Data) {
        self.init(status: status, body: body) { HTTPErrorResponse(status: status, body: body) }
    }
}

/// Reads what an auth endpoint answered, each way it can go wrong its own error, with the
/// answer kept.
enum AuthEndpointResponse {
    /// The JSON object of a 200/201 answer.
    static func object(_ answer: AuthEndpointAnswer) throws(ChannelAuthorizationError) -> [String: JSONValue] {
        guard answer.status == 200 || answer.status == 201 else { throw .httpStatus(answer.kept()) }
        let text = String(decoding: answer.body, as: UTF8.self)
        guard !text.allSatisfy(\.isWhitespace) else { throw .emptyBody(answer.kept()) }
        guard let value = JSONValue(parsing: text) else { throw .notJSON(answer.kept()) }
        guard let object = value.objectValue else { throw .notObject(answer.kept()) }
        return object
    }

    /// A channel authorization from a JSON object (`auth`, `channel_data`, `shared_secret`).
    static func channelAuthorization(_ object: [String: JSONValue], answer: AuthEndpointAnswer) throws(ChannelAuthorizationError) -> ChannelAuthorization {
        guard let auth = object["auth"]?.stringValue, !auth.isEmpty else { throw .missingAuth(answer.kept()) }
        return ChannelAuthorization(auth: auth, channelData: object["channel_data"]?.stringValue, sharedSecret: object["shared_secret"]?.stringValue)
    }

    /// A single channel's answer.
    static func channelAuthorization(_ answer: AuthEndpointAnswer) throws(ChannelAuthorizationError) -> ChannelAuthorization {
        try channelAuthorization(try object(answer), answer: answer)
    }

    /// A user sign-in answer: `{"auth":…,"user_data":…}`.
    static func userAuthentication(_ answer: AuthEndpointAnswer) throws(ChannelAuthorizationError) -> UserAuthentication {
        let object = try object(answer)
        guard let auth = object["auth"]?.stringValue, !auth.isEmpty, let userData = object["user_data"]?.stringValue else {
            throw .missingAuth(answer.kept())
        }
        return UserAuthentication(auth: auth, userData: userData)
    }

    /// A batched answer (pusher-js-auth's format): `{"a":{"status":200,"data":{…}},"b":{"status":403}}`.
    /// A missing `status` is 200; a channel missing from the answer is 404. Each entry's answer
    /// is its own status and its `data` as the body.
    static func batch(_ answer: AuthEndpointAnswer, channels: [String]) throws(ChannelAuthorizationError) -> [String: Result<ChannelAuthorization, ChannelAuthorizationError>] {
        let object = try object(answer)
        var results: [String: Result<ChannelAuthorization, ChannelAuthorizationError>] = [:]
        for channel in channels {
            results[channel] = Result { () throws(ChannelAuthorizationError) in try entry(object[channel]) }
        }
        return results
    }

    private static func entry(_ entry: JSONValue?) throws(ChannelAuthorizationError) -> ChannelAuthorization {
        guard let entry = entry?.objectValue else { throw .httpStatus(HTTPErrorResponse(status: 404)) }
        let data = entry["data"]
        let status = entry["status"]?.intValue ?? 200
        let body = Data((data.map { $0.stringValue ?? $0.jsonText } ?? "").utf8)
        let answer = AuthEndpointAnswer(status: status, body: body)
        guard status == 200 || status == 201 else { throw .httpStatus(answer.kept()) }
        guard let data else { throw .emptyBody(answer.kept()) }
        guard let object = data.objectValue ?? data.stringValue.flatMap({ JSONValue(parsing: $0)?.objectValue }) else {
            throw .notObject(answer.kept())
        }
        return try channelAuthorization(object, answer: answer)
    }
}
