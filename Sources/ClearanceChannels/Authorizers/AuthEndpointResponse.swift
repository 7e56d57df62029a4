import Foundation

/// Reads what an auth endpoint answered, each way it can go wrong its own error.
enum AuthEndpointResponse {
    /// The JSON object of a 200/201 answer.
    static func object(status: Int, body: Data) throws(ChannelAuthorizationError) -> [String: Any] {
        let text = String(decoding: body, as: UTF8.self)
        guard status == 200 || status == 201 else { throw .httpStatus(status: status, body: text) }
        guard !text.allSatisfy(\.isWhitespace) else { throw .emptyBody(status: status) }
        guard let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            throw .notJSON(status: status, body: text)
        }
        guard let object = value as? [String: Any] else { throw .notObject(status: status, body: text) }
        return object
    }

    /// A channel authorization from a JSON object (`auth`, `channel_data`, `shared_secret`).
    static func channelAuthorization(_ object: [String: Any], status: Int, body: @autoclosure () -> String) throws(ChannelAuthorizationError) -> ChannelAuthorization {
        guard let auth = object["auth"] as? String, !auth.isEmpty else { throw .missingAuth(status: status, body: body()) }
        return ChannelAuthorization(
            auth: auth,
            channelData: object["channel_data"] as? String,
            sharedSecret: object["shared_secret"] as? String
        )
    }

    /// A single channel's answer.
    static func channelAuthorization(status: Int, body: Data) throws(ChannelAuthorizationError) -> ChannelAuthorization {
        let object = try object(status: status, body: body)
        return try channelAuthorization(object, status: status, body: String(decoding: body, as: UTF8.self))
    }

    /// A user sign-in answer: `{"auth":…,"user_data":…}`.
    static func userAuthentication(status: Int, body: Data) throws(ChannelAuthorizationError) -> UserAuthentication {
        let object = try object(status: status, body: body)
        guard let auth = object["auth"] as? String, !auth.isEmpty, let userData = object["user_data"] as? String else {
            throw .missingAuth(status: status, body: String(decoding: body, as: UTF8.self))
        }
        return UserAuthentication(auth: auth, userData: userData)
    }

    /// A batched answer (pusher-js-auth's format): `{"a":{"status":200,"data":{…}},"b":{"status":403}}`.
    /// A missing `status` is 200; a channel missing from the answer is 404.
    static func batch(status: Int, body: Data, channels: [String]) throws(ChannelAuthorizationError) -> [String: Result<ChannelAuthorization, ChannelAuthorizationError>] {
        let object = try object(status: status, body: body)
        var results: [String: Result<ChannelAuthorization, ChannelAuthorizationError>] = [:]
        for channel in channels {
            guard let entry = object[channel] as? [String: Any] else {
                results[channel] = .failure(.httpStatus(status: 404, body: ""))
                continue
            }
            let entryStatus = FrameJSON.int(entry["status"]) ?? 200
            let data: [String: Any]?
            switch entry["data"] {
            case let nested as [String: Any]: data = nested
            case let text as String: data = FrameJSON.object(text)
            default: data = nil
            }
            let entryBody = entry["data"].flatMap(FrameJSON.text) ?? ""
            guard entryStatus == 200 || entryStatus == 201 else {
                results[channel] = .failure(.httpStatus(status: entryStatus, body: entryBody))
                continue
            }
            guard let data else {
                results[channel] = .failure(entry["data"] == nil ? .emptyBody(status: entryStatus) : .notObject(status: entryStatus, body: entryBody))
                continue
            }
            do {
                results[channel] = .success(try channelAuthorization(data, status: entryStatus, body: entryBody))
            } catch {
                results[channel] = .failure(error)
            }
        }
        return results
    }
}
