import ClearanceWire
import ClearanceSigning

/// Signs channel authorizations in the client with the app secret.
///
/// **For tests and trusted tools only** (a CLI on the operator's machine, a load generator, a
/// test suite). Anyone who holds a client built with the app secret can subscribe to every
/// channel of the app and impersonate any presence member: never ship it in an app.
///
/// Presence channels need `channel_data`; `presenceChannelData` (see ``init(signer:presenceChannelData:)``) supplies it per channel
/// (for example `{"user_id":"alice","user_info":{"name":"Alice"}}`). Encrypted channels need the
/// encryption master key in the signer.
public struct InlineSecretChannelAuthorizer: ChannelAuthorizer {
    /// Supplies the `channel_data` JSON for a presence channel.
    public typealias PresenceChannelDataProvider = @Sendable (_ channelName: String) -> String?

    private let signer: ChannelAuthSigner
    private let presenceChannelData: PresenceChannelDataProvider

    /// Signs with `signer`; presence channels get `presenceChannelData(channel)`.
    public init(signer: ChannelAuthSigner, presenceChannelData: @escaping PresenceChannelDataProvider = { _ in nil }) {
        self.signer = signer
        self.presenceChannelData = presenceChannelData
    }

    /// Signs with the app's key and secret (and master key for encrypted channels); presence
    /// channels get `{"user_id":userID,"user_info":userInfoJSON}`.
    public init(key: String, secret: String, masterKeyBase64: String? = nil, userID: String? = nil, userInfoJSON: String? = nil) throws(SigningError) {
        let signer = try ChannelAuthSigner(key: key, secret: secret, masterKeyBase64: masterKeyBase64)
        let channelData: String? = userID.map { id in
            var data = JSONWriter()
            data.string("user_id", id)
            if let userInfoJSON { data.raw("user_info", userInfoJSON) }
            return data.text
        }
        self.init(signer: signer) { _ in channelData }
    }

    public func authorize(socketID: String, channelName: String) async throws(ChannelAuthorizationError) -> ChannelAuthorization {
        let kind = ChannelNameKind(channelName: channelName)
        let channelData = kind == .presence ? presenceChannelData(channelName) : nil
        if kind == .presence && channelData == nil {
            throw .misconfigured(reason: "no presence channel_data for this channel")
        }
        do {
            return try signer.authorizeChannel(socketID: socketID, channelName: channelName, channelData: channelData)
        } catch {
            throw .misconfigured(reason: error.message)
        }
    }
}
