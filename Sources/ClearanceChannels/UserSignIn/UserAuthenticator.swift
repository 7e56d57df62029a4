@_exported import struct ClearanceSigning.UserAuthentication
@_exported import struct ClearanceSigning.PresenceMember
@_exported import struct ClearanceSigning.ClientEventRateLimiter

/// Authenticates the connection as a user for `pusher:signin`: given the socket id, returns
/// `auth` and the exact `user_data` JSON that was signed (`socket_id::user::user_data`).
///
/// Built in: ``ServerUserAuthenticator`` (POSTs `socket_id` to the app's user-auth endpoint,
/// pusher-js's `/pusher/user-auth`), ``CustomUserAuthenticator`` and
/// ``InlineSecretUserAuthenticator`` (tests and trusted tools only). Errors are reported like
/// channel authorization errors (``ChannelAuthorizationError``, ``ChannelAuthorizationError/cancelled``
/// when the caller was cancelled).
public protocol UserAuthenticator: Sendable {
    /// The sign-in authentication for `socketID`.
    func authenticate(socketID: String) async throws(ChannelAuthorizationError) -> UserAuthentication
}
