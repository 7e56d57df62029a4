import ClearanceSecretBox

enum SecretBoxTestHelper {
    static func seal(_ text: String, nonce: [UInt8], key: [UInt8]) throws -> [UInt8] {
        try SecretBox.seal(Array(text.utf8), nonce: nonce, key: key)
    }
}
