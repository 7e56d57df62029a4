@_exported import struct ClearanceSigning.ChannelAuthorization

/// Authorizes this client to subscribe to a private, presence or encrypted channel: one method,
/// given the connection's socket id and the channel's name.
///
/// Built-in authorizers: ``ServerChannelAuthorizer`` (POSTs to the app's auth endpoint),
/// ``BatchingChannelAuthorizer`` (many channels in one POST), ``CustomChannelAuthorizer`` (the
/// app's own closure, `async` or completion handler) and ``InlineSecretChannelAuthorizer`` (signs
/// locally; tests and trusted tools only).
///
/// Conformers throw ``ChannelAuthorizationError`` (``ChannelAuthorizationError/cancelled`` when
/// the caller was cancelled; wrap any other error with ``ChannelAuthorizationError/init(wrapping:)``)
/// and honour cancellation. The client bounds
/// every call with its ``ChannelClientOptions/authorizationTimeout`` and retries transient
/// failures (``ChannelAuthorizationError/isTransient``) with back-off, so an authorizer that
/// hangs never leaves a channel pending forever. The client also checks the result: presence
/// channels need `channelData`, encrypted channels a `sharedSecret`.
public protocol ChannelAuthorizer: Sendable {
    /// The authorization of `socketID` for `channelName`.
    func authorize(socketID: String, channelName: String) async throws(ChannelAuthorizationError) -> ChannelAuthorization
}
