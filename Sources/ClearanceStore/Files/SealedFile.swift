/// The on-disk envelope of an ``EncryptedFileStore``: a small JSON object naming the format,
/// its version and the key's identifier, around the AES-GCM sealed box (nonce, ciphertext and
/// tag, base64). The format, version and key identifier are authenticated too, so a file of
/// one format (an OAuth2 session) never opens as another (an entitlement snapshot).
struct SealedFile: Codable {
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
