import Clearance
import ClearanceWire
import Crypto
import Foundation

/// Signs and verifies Pusher Channels channel authorizations and user sign-ins for one app.
///
/// The HMAC-SHA256 state is keyed with the secret once, in ``init(key:secret:masterKeyBase64:limits:)``;
/// every signature starts from a copy of it, and the `key:hex` string is written through a hex
/// lookup table into a single preallocated string.
///
/// Signed strings:
/// - channels: `socket_id:channel_name`, or `socket_id:channel_name:channel_data` when channel
///   data is given (presence channels always, others only if the caller passes it);
/// - users: `socket_id::user::user_data`.
///
/// `channel_data` and `user_data` are signed exactly as given (never re-serialized), after being
/// checked: presence `channel_data` must be a JSON object with a usable `user_id`
/// (see ``PresenceChannelData``), and `user_data` a JSON object with a non-empty string `id`
/// (see ``PusherUserData``). For other channel kinds `channel_data` is optional and opaque.
///
/// Public channels can be signed too (some servers and test suites do); clients never ask for it.
/// `#server-to-user-` channels are refused with ``SigningError/serverToUserChannel``.
public struct ChannelAuthSigner: Sendable {
    /// The app key, the part of `auth` before the colon.
    public let key: String
    /// The channel name rules applied when signing and verifying.
    public let limits: ChannelNameLimits

    private let mac: KeyedHMAC
    private let authPrefix: [UInt8]
    private let masterKey: SymmetricKey?

    /// Creates a signer, validating its configuration.
    ///
    /// - Parameters:
    ///   - key: The app key; non-empty, without `:`.
    ///   - secret: The app secret; non-empty. Used as its UTF-8 bytes.
    ///   - masterKeyBase64: The encryption master key for `private-encrypted-` channels: base64
    ///     of exactly 32 bytes.
    ///   - limits: Channel name rules; ``ChannelNameLimits/hosted`` for hosted Pusher's 164.
    /// - Throws: ``SigningError/invalidKey``, ``SigningError/emptySecret`` or
    ///   ``SigningError/invalidMasterKey``.
    public init(
        key: String,
        secret: String,
        masterKeyBase64: String? = nil,
        limits: ChannelNameLimits = .default
    ) throws(SigningError) {
        guard !key.isEmpty, !key.utf8.contains(UInt8(ascii: ":")) else { throw .invalidKey }
        guard !secret.isEmpty else { throw .emptySecret }
        if let masterKeyBase64 {
            guard let decoded = Data(base64Encoded: masterKeyBase64), decoded.count == 32 else {
                throw .invalidMasterKey
            }
            masterKey = SymmetricKey(data: decoded)
        } else {
            masterKey = nil
        }
        self.key = key
        self.limits = limits
        mac = KeyedHMAC(secret: secret)
        authPrefix = Array(key.utf8) + [UInt8(ascii: ":")]
    }

    /// Whether an encryption master key was configured (needed for `private-encrypted-` channels).
    public var hasMasterKey: Bool { masterKey != nil }

    // MARK: - Channels

    /// Authorizes `socketID` to subscribe to `channelName`.
    ///
    /// - Parameters:
    ///   - socketID: The connection's socket id, `^\d+\.\d+$`.
    ///   - channelName: A valid channel name within ``limits``.
    ///   - channelData: Required for presence channels (a JSON object with `user_id`); signed
    ///     verbatim when present.
    /// - Returns: `auth`, the signed `channel_data`, and for `private-encrypted-` channels the
    ///   `shared_secret`.
    /// - Throws: ``SigningError`` describing the first invalid input, or
    ///   ``SigningError/missingMasterKey`` for an encrypted channel without a master key.
    public func authorizeChannel(
        socketID: String,
        channelName: String,
        channelData: String? = nil
    ) throws(SigningError) -> ChannelAuthorization {
        let kind = try validateChannelRequest(socketID: socketID, channelName: channelName, channelData: channelData)
        var sharedSecret: String?
        if kind == .privateEncrypted {
            sharedSecret = try self.sharedSecret(forValidatedChannel: channelName)
        }
        let code = mac.code(socketID, channelName, channelData, separator: ":")
        return ChannelAuthorization(
            auth: KeyedHMAC.hex(code, prefix: authPrefix),
            channelData: channelData,
            sharedSecret: sharedSecret
        )
    }

    /// The base64 `shared_secret` of a `private-encrypted-` channel:
    /// `base64(SHA256(channel_name_bytes + master_key_bytes))`.
    ///
    /// - Throws: a channel name error, ``SigningError/invalidChannelName`` when the channel is not
    ///   `private-encrypted-`, or ``SigningError/missingMasterKey``.
    public func sharedSecret(channelName: String) throws(SigningError) -> String {
        guard try limits.validate(channelName) == .privateEncrypted else { throw .invalidChannelName }
        return try sharedSecret(forValidatedChannel: channelName)
    }

    /// Whether `auth` is this app's valid authorization of `socketID` for `channelName`
    /// (with `channelData`, which must be given for presence channels).
    ///
    /// The signature is compared in constant time. Invalid inputs return `false`; use
    /// ``checkChannelAuth(auth:socketID:channelName:channelData:)`` to learn why.
    public func verifyChannelAuth(
        auth: String,
        socketID: String,
        channelName: String,
        channelData: String? = nil
    ) -> Bool {
        do {
            try checkChannelAuth(auth: auth, socketID: socketID, channelName: channelName, channelData: channelData)
            return true
        } catch {
            return false
        }
    }

    /// Checks `auth` like ``verifyChannelAuth(auth:socketID:channelName:channelData:)``, throwing
    /// the reason for a failure. Does not need the master key, even for encrypted channels.
    ///
    /// - Throws: an input validation error, ``SigningError/malformedAuth``,
    ///   ``SigningError/unknownKey`` or ``SigningError/invalidSignature``.
    public func checkChannelAuth(
        auth: String,
        socketID: String,
        channelName: String,
        channelData: String? = nil
    ) throws(SigningError) {
        _ = try validateChannelRequest(socketID: socketID, channelName: channelName, channelData: channelData)
        try check(auth: auth, code: mac.code(socketID, channelName, channelData, separator: ":"))
    }

    // MARK: - Users

    /// Signs a user sign-in: the signed string is `socket_id::user::user_data`.
    ///
    /// - Parameters:
    ///   - socketID: The connection's socket id, `^\d+\.\d+$`.
    ///   - userData: A JSON object with a non-empty string `id`; signed verbatim.
    /// - Throws: ``SigningError/invalidSocketID``, ``SigningError/invalidUserData`` or
    ///   ``SigningError/invalidUserDataID``.
    public func authenticateUser(socketID: String, userData: String) throws(SigningError) -> UserAuthentication {
        try SocketIDFormat.validate(socketID)
        _ = try PusherUserData(parsing: userData)
        let code = mac.code(socketID, userData, separator: "::user::")
        return UserAuthentication(auth: KeyedHMAC.hex(code, prefix: authPrefix), userData: userData)
    }

    /// Whether `auth` is this app's valid sign-in signature for `socketID` and `userData`,
    /// compared in constant time. Invalid inputs return `false`.
    public func verifyUserAuth(auth: String, socketID: String, userData: String) -> Bool {
        do {
            try checkUserAuth(auth: auth, socketID: socketID, userData: userData)
            return true
        } catch {
            return false
        }
    }

    /// Checks a sign-in like ``verifyUserAuth(auth:socketID:userData:)``, throwing the reason.
    public func checkUserAuth(auth: String, socketID: String, userData: String) throws(SigningError) {
        try SocketIDFormat.validate(socketID)
        _ = try PusherUserData(parsing: userData)
        try check(auth: auth, code: mac.code(socketID, userData, separator: "::user::"))
    }

    // MARK: - Internals

    private func validateChannelRequest(
        socketID: String,
        channelName: String,
        channelData: String?
    ) throws(SigningError) -> ChannelNameKind {
        try SocketIDFormat.validate(socketID)
        let kind = try limits.validate(channelName)
        switch kind {
        case .serverToUser:
            throw .serverToUserChannel
        case .presence:
            guard let channelData else { throw .missingChannelData }
            _ = try PresenceChannelData(parsing: channelData)
        case .public, .private, .privateEncrypted:
            break
        }
        return kind
    }

    private func sharedSecret(forValidatedChannel channelName: String) throws(SigningError) -> String {
        guard let masterKey else { throw .missingMasterKey }
        var hash = SHA256()
        channelName.withUTF8Buffer { hash.update(bufferPointer: $0) }
        masterKey.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return hash.finalize().withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// Splits `auth` at its first colon, checks the key part, and compares the signature part
    /// with the hex of `code` in constant time.
    private func check(auth: String, code: HashedAuthenticationCode<SHA256>) throws(SigningError) {
        guard let colon = auth.utf8.firstIndex(of: UInt8(ascii: ":")) else { throw .malformedAuth }
        let givenKey = String(auth[..<colon])
        let givenSignature = String(auth[auth.utf8.index(after: colon)...])
        let keyMatches = ConstantTime.equals(key, givenKey)
        let signatureMatches = KeyedHMAC.matches(hex: givenSignature, code: code)
        guard keyMatches else { throw .unknownKey }
        guard signatureMatches else { throw .invalidSignature }
    }
}

extension ChannelAuthSigner: SecretRedacting {
    /// The app key only: never the secret nor the encryption master key.
    public var description: String { "ChannelAuthSigner(key: \(key), secret: \(Redactor.mask))" }
}
