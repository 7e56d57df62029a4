/// The on-disk envelope of an ``EncryptedFileSessionStore``: a small JSON object naming the
/// format, its version and the key's identifier, around the AES-GCM sealed box (nonce,
/// ciphertext and tag, base64). The format, version and key identifier are authenticated too.
struct SealedSessionFile: Codable {
    static let format = "clearance.oauth2-session"
    static let currentVersion = 1

    var format: String
    var version: Int
    var keyID: String
    var sealed: String

    enum CodingKeys: String, CodingKey {
        case format, version, keyID = "key_id", sealed
    }

    /// The additional authenticated data binding the envelope's fields to the ciphertext.
    var authenticatedData: [UInt8] { Array("\(format)/\(version)/\(keyID)".utf8) }
}
