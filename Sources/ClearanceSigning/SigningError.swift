import Clearance

/// Everything that can go wrong while signing or verifying Pusher Channels payloads.
///
/// Each case has a stable ``code`` (for logs, metrics and HTTP error bodies) and a human
/// ``message``. Messages never contain the app secret or the master key, and they do not echo
/// caller-supplied values such as socket ids or channel names, so they are safe to log and to
/// return to clients.
public enum SigningError: ClearanceError, Equatable {
    // MARK: Credentials

    /// The app key is empty or contains a `:` (which would make `key:signature` ambiguous).
    case invalidKey
    /// The app secret is empty.
    case emptySecret
    /// The app id is empty or contains characters other than `[A-Za-z0-9._-]`.
    case invalidAppID
    /// The encryption master key is not valid base64 or does not decode to exactly 32 bytes.
    case invalidMasterKey
    /// A `private-encrypted-` channel was authorized by a signer that has no master key.
    case missingMasterKey

    // MARK: Channel authorization and user authentication

    /// The socket id does not match `^\d+\.\d+$`.
    case invalidSocketID
    /// The channel name is empty.
    case emptyChannelName
    /// The channel name contains a character outside `[A-Za-z0-9_\-=@,.;]` (or a `#` that is not
    /// part of a leading `#server-to-user-`).
    case invalidChannelName
    /// The channel name is longer than the configured ``ChannelNameLimits/maxLength``.
    case channelNameTooLong(length: Int, limit: Int)
    /// `#server-to-user-…` channels are joined through user sign-in, never authorized one by one.
    case serverToUserChannel
    /// A presence channel was authorized without `channel_data`.
    case missingChannelData
    /// `channel_data` for a presence channel is not a well-formed JSON object.
    case invalidChannelData
    /// `channel_data.user_id` is missing, not a string or number, empty, or longer than 128 characters.
    case invalidPresenceUserID
    /// `user_data` is not a well-formed JSON object.
    case invalidUserData
    /// `user_data.id` is missing, not a string, or empty.
    case invalidUserDataID
    /// An `auth` value is not of the form `key:signature`.
    case malformedAuth

    // MARK: HTTP API (REST) and webhooks

    /// A caller-supplied query parameter uses a name reserved for the signature (`auth_*`, `body_md5`).
    case reservedParameter(String)
    /// A query parameter appears twice.
    case duplicateParameter(String)
    /// A query parameter name is not lower case (letters, digits, `_`, `-`, `.`, `[`, `]`): the
    /// signature covers names lower-cased, so another case would pass for a parameter it is not.
    case invalidParameterName(String)
    /// A query parameter's value holds `&` once decoded: it would sign the same as several
    /// parameters.
    case ambiguousParameter(String)
    /// The query is not valid percent-encoding.
    case malformedQuery
    /// A required query parameter is missing.
    case missingParameter(String)
    /// `auth_key` is not this app's key.
    case unknownKey
    /// `auth_version` is not `1.0`.
    case unsupportedAuthVersion
    /// `auth_timestamp` is not a whole number of seconds.
    case invalidTimestamp
    /// `auth_timestamp` is further in the past than the allowed window.
    case expiredTimestamp
    /// `auth_timestamp` is further in the future than the allowed window.
    case futureTimestamp
    /// `body_md5` does not match the request body (or is missing although there is a body).
    case bodyMD5Mismatch
    /// The signature does not match.
    case invalidSignature

    public static let codeDomain = "signing"

    /// Each case's code and message (safe to log and to show to API clients).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .invalidKey: .init(.invalidKey, "The app key must be non-empty and must not contain ':'.")
        case .emptySecret: .init(.emptySecret, "The app secret must not be empty.")
        case .invalidAppID: .init(.invalidAppID, "The app id must be non-empty and contain only letters, digits, '.', '_' or '-'.")
        case .invalidMasterKey: .init(.invalidMasterKey, "The encryption master key must be base64 that decodes to exactly 32 bytes.")
        case .missingMasterKey: .init(.missingMasterKey, "Encrypted channels (private-encrypted-) need an encryption master key, and none was configured.")
        case .invalidSocketID: .init(.invalidSocketID, "The socket_id must look like '123.456' (digits, a dot, digits).")
        case .emptyChannelName: .init(.emptyChannelName, "The channel name must not be empty.")
        case .invalidChannelName: .init(.invalidChannelName, "The channel name may only contain A-Z, a-z, 0-9 and _ - = @ , . ;")
        case let .channelNameTooLong(length, limit): .init(.channelNameTooLong, "The channel name is \(length) characters long; the limit is \(limit).")
        case .serverToUserChannel: .init(.serverToUserChannel, "#server-to-user- channels cannot be authorized; they are joined through user sign-in.")
        case .missingChannelData: .init(.missingChannelData, "Presence channels need channel_data (a JSON object with a user_id).")
        case .invalidChannelData: .init(.invalidChannelData, "channel_data must be a well-formed JSON object.")
        case .invalidPresenceUserID: .init(.invalidPresenceUserID, "channel_data.user_id must be a non-empty string or a number, at most 128 characters long.")
        case .invalidUserData: .init(.invalidUserData, "user_data must be a well-formed JSON object.")
        case .invalidUserDataID: .init(.invalidUserDataID, "user_data.id must be a non-empty string.")
        case .malformedAuth: .init(.malformedAuth, "The auth value must have the form 'key:signature'.")
        case let .reservedParameter(name): .init(.reservedParameter, "The query parameter '\(name)' is reserved for the request signature.")
        case let .duplicateParameter(name): .init(.duplicateParameter, "The query parameter '\(name)' appears more than once.")
        case .invalidParameterName: .init(.invalidParameterName, "Query parameter names must be lower-case letters, digits, '_', '-', '.', '[' or ']' (the signature covers names lower-cased).")
        case .ambiguousParameter: .init(.ambiguousParameter, "A query parameter value holds '&' once decoded: it would sign the same as several parameters.")
        case .malformedQuery: .init(.malformedQuery, "The query is not valid percent-encoding.")
        case let .missingParameter(name): .init(.missingParameter, "The query parameter '\(name)' is required.")
        case .unknownKey: .init(.unknownKey, "auth_key is not the key of this app.")
        case .unsupportedAuthVersion: .init(.unsupportedAuthVersion, "auth_version must be 1.0.")
        case .invalidTimestamp: .init(.invalidTimestamp, "auth_timestamp must be a whole number of seconds since 1970.")
        case .expiredTimestamp: .init(.expiredTimestamp, "auth_timestamp is too old.")
        case .futureTimestamp: .init(.futureTimestamp, "auth_timestamp is too far in the future.")
        case .bodyMD5Mismatch: .init(.bodyMD5Mismatch, "body_md5 does not match the request body.")
        case .invalidSignature: .init(.invalidSignature, "Invalid signature.")
        }
    }

    /// Stable machine-readable codes, one per case; ``qualifiedCode`` is `signing.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case invalidKey, emptySecret, invalidAppID, invalidMasterKey, missingMasterKey, invalidSocketID, emptyChannelName, invalidChannelName, channelNameTooLong, serverToUserChannel, missingChannelData, invalidChannelData, invalidPresenceUserID, invalidUserData, invalidUserDataID, malformedAuth, reservedParameter, duplicateParameter, invalidParameterName, ambiguousParameter, malformedQuery, missingParameter, unknownKey, unsupportedAuthVersion, invalidTimestamp, expiredTimestamp, futureTimestamp, bodyMD5Mismatch, invalidSignature
    }
}
