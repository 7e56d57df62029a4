import ClearanceWire
import ClearanceSecretBox
import Foundation

/// The data of an event on a `private-encrypted-` channel: `{"nonce": b64(24 bytes),
/// "ciphertext": b64(secretbox)}`, opened with the channel's base64 `shared_secret`.
struct EncryptedPayload: Sendable, Hashable {
    let nonce: [UInt8]
    let ciphertext: [UInt8]

    /// Reads the payload; nil when it is not an object with base64 `nonce` and `ciphertext`.
    init?(_ text: String?) {
        guard let text, let object = JSONValue(parsing: text),
              let nonceText = object["nonce"]?.stringValue, let nonce = Data(base64Encoded: nonceText),
              let boxText = object["ciphertext"]?.stringValue, let box = Data(base64Encoded: boxText)
        else { return nil }
        self.nonce = Array(nonce)
        self.ciphertext = Array(box)
    }

    /// The 32-byte key from a base64 `shared_secret`, or nil.
    static func key(fromSharedSecret sharedSecret: String?) -> [UInt8]? {
        guard let sharedSecret, let data = Data(base64Encoded: sharedSecret), data.count == SecretBox.keyLength else { return nil }
        return Array(data)
    }

    /// The plaintext as text.
    func open(with key: [UInt8]) throws(SecretBoxError) -> String {
        String(decoding: try SecretBox.open(ciphertext, nonce: nonce, key: key), as: UTF8.self)
    }
}
