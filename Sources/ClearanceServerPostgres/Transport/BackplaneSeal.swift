import Crypto
import Foundation

/// Seals and opens what nodes send each other (ChaChaPoly, the cluster's key).
///
/// A sealed text is base64 of `nonce ‖ ciphertext ‖ tag`; the plaintext is the sender's
/// sequence number (8 bytes), the time it was sealed (milliseconds since 1970, 8 bytes), then the
/// body. The associated data binds the format, the namespace, the sending node and what the text
/// is (a notification, or a stored payload): a text sealed for one of them opens for no other.
struct BackplaneSeal: Sendable {
    /// Where a sealed text travels.
    enum Carrier: String, Sendable {
        case notification, storedPayload = "stored"
        /// A queued webhook event, or a channel of the occupancy table: opened by any node.
        case webhook
    }

    /// What a sealed text holds.
    struct Envelope: Sendable, Equatable {
        let sequence: UInt64
        let sentAt: Date
        let body: String
    }

    /// Why a text does not open.
    enum Failure: Error, Equatable {
        /// Not base64, too short, or the tag does not verify (another key, another node,
        /// tampered): a forgery or a stranger.
        case doesNotOpen
    }

    private let key: BackplaneClusterKey
    private let namespace: String

    init(key: BackplaneClusterKey, namespace: String) {
        self.key = key
        self.namespace = namespace
    }

    /// The bytes of a sealed text beyond its body's, before base64.
    static let overhead = 12 + 16 + 16

    /// The longest body whose sealed text fits in `bytes` of base64.
    static func longestBody(fittingIn bytes: Int) -> Int {
        bytes / 4 * 3 - overhead
    }

    func seal(_ body: String, node: String, sequence: UInt64, sentAt: Date, carrier: Carrier) -> String {
        var plaintext = Data(capacity: 16 + body.utf8.count)
        withUnsafeBytes(of: sequence.bigEndian) { plaintext.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(sentAt.timeIntervalSince1970 * 1_000).bigEndian) { plaintext.append(contentsOf: $0) }
        plaintext.append(contentsOf: body.utf8)
        // ChaChaPoly with a random nonce cannot fail for a valid key and nonce.
        let box = try! ChaChaPoly.seal(plaintext, using: key.key, authenticating: associatedData(node: node, carrier: carrier))
        return box.combined.base64EncodedString()
    }

    func open(_ text: some StringProtocol, node: String, carrier: Carrier) throws(Failure) -> Envelope {
        guard let combined = Data(base64Encoded: String(text)), combined.count >= Self.overhead,
              let box = try? ChaChaPoly.SealedBox(combined: combined),
              let plaintext = try? ChaChaPoly.open(box, using: key.key, authenticating: associatedData(node: node, carrier: carrier)),
              let body = String(data: plaintext.dropFirst(16), encoding: .utf8)
        else { throw .doesNotOpen }
        let bytes = Array(plaintext.prefix(16))
        let sequence = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let milliseconds = Int64(bitPattern: bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        return Envelope(sequence: sequence, sentAt: Date(timeIntervalSince1970: Double(milliseconds) / 1_000), body: body)
    }

    private func associatedData(node: String, carrier: Carrier) -> Data {
        Data("clearance-backplane-v1\n\(namespace)\n\(node)\n\(carrier.rawValue)".utf8)
    }
}
