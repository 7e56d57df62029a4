import ClearanceSigning

/// Signs user sign-ins in the client with the app secret.
///
/// **For tests and trusted tools only**: whoever holds the secret can sign in as anyone.
public struct InlineSecretUserAuthenticator: UserAuthenticator {
    private let signer: ChannelAuthSigner
    private let userData: String

    /// Signs `userData` (a JSON object with a string `id`) with `signer`.
    public init(signer: ChannelAuthSigner, userData: String) throws(SigningError) {
        _ = try PusherUserData(parsing: userData)
        self.signer = signer
        self.userData = userData
    }

    public func authenticate(socketID: String) async throws(ChannelAuthorizationError) -> UserAuthentication {
        do {
            return try signer.authenticateUser(socketID: socketID, userData: userData)
        } catch {
            throw .misconfigured(reason: error.message)
        }
    }
}
