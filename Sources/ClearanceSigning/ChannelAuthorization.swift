import Clearance
import ClearanceWire

/// What a channel authorization endpoint returns for one channel.
///
/// Encodes (``jsonString``, or `Codable` with the wire keys) as `{"auth":…}` plus
/// `"channel_data"` for presence channels and `"shared_secret"` for encrypted channels.
public struct ChannelAuthorization: Sendable, Hashable, Codable {
    /// `key:hex-signature`.
    public let auth: String
    /// The exact `channel_data` string that was signed (presence channels), if any.
    public let channelData: String?
    /// Base64 of the 32-byte secretbox key for a `private-encrypted-` channel.
    public let sharedSecret: String?

    /// Creates an authorization from its parts.
    public init(auth: String, channelData: String? = nil, sharedSecret: String? = nil) {
        self.auth = auth
        self.channelData = channelData
        self.sharedSecret = sharedSecret
    }

    /// The response body as a dictionary: `auth`, plus `channel_data` / `shared_secret` when present.
    public var jsonObject: [String: String] {
        var object = ["auth": auth]
        if let channelData { object["channel_data"] = channelData }
        if let sharedSecret { object["shared_secret"] = sharedSecret }
        return object
    }

    /// The response body as compact JSON with keys in sorted order; deterministic byte for byte.
    public var jsonString: String {
        switch (channelData, sharedSecret) {
        case (nil, nil):
            JSONWriter.object(["auth": auth])
        case let (channelData?, nil):
            JSONWriter.object(["auth": auth, "channel_data": channelData])
        case let (nil, sharedSecret?):
            JSONWriter.object(["auth": auth, "shared_secret": sharedSecret])
        case let (channelData?, sharedSecret?):
            JSONWriter.object(["auth": auth, "channel_data": channelData, "shared_secret": sharedSecret])
        }
    }

    /// The wire names of the members.
    public enum CodingKeys: String, CodingKey, Sendable {
        /// `auth`
        case auth
        /// `channel_data`
        case channelData = "channel_data"
        /// `shared_secret`
        case sharedSecret = "shared_secret"
    }
}

extension ChannelAuthorization: SecretRedacting {
    /// Shows the app key of ``auth`` and whether the other members are present; never the
    /// signature, the `channel_data` or the shared secret.
    public var description: String {
        "ChannelAuthorization(auth: \(AuthValue.redacted(auth)), channelData: \(channelData == nil ? "none" : Redactor.mask), sharedSecret: \(sharedSecret == nil ? "none" : Redactor.mask))"
    }
}
