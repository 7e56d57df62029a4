import Clearance
import ClearanceWire

/// What a user authentication (sign-in) endpoint returns.
///
/// Encodes (``jsonString``, or `Codable` with the wire keys) as `{"auth":…,"user_data":…}`.
public struct UserAuthentication: Sendable, Hashable, Codable {
    /// `key:hex-signature`.
    public let auth: String
    /// The exact `user_data` string that was signed.
    public let userData: String

    /// Creates an authentication from its parts.
    public init(auth: String, userData: String) {
        self.auth = auth
        self.userData = userData
    }

    /// The response body as a dictionary: `auth` and `user_data`.
    public var jsonObject: [String: String] {
        ["auth": auth, "user_data": userData]
    }

    /// The response body as compact JSON with keys in sorted order; deterministic byte for byte.
    public var jsonString: String {
        JSONWriter.object(["auth": auth, "user_data": userData])
    }

    /// The wire names of the members.
    public enum CodingKeys: String, CodingKey, Sendable {
        /// `auth`
        case auth
        /// `user_data`
        case userData = "user_data"
    }
}

extension UserAuthentication: SecretRedacting {
    /// Shows the app key of ``auth`` and the size of ``userData``; never the signature.
    public var description: String {
        "UserAuthentication(auth: \(AuthValue.redacted(auth)), userData: \(userData.utf8.count) bytes)"
    }
}
