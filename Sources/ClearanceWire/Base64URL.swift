import Foundation

/// Base64url without padding (RFC 4648 §5): PKCE verifiers and challenges, `state` values, and
/// the segments of a compact JWT.
package enum Base64URL {
    /// `data` as base64url, without padding.
    package static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url `text` written without padding (RFC 7515 §2), or nil when it holds
    /// anything but the base64url alphabet, padding included, or has an impossible length.
    package static func decode(_ text: some StringProtocol) -> Data? {
        let alphabet = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
        guard alphabet, text.utf8.count % 4 != 1 else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
