import Clearance
import ClearanceSigning
import Crypto
import Foundation

/// How edition passwords (the Basic password of a content request) are made and checked.
///
/// - ``hmacSHA256``, the default: `v1.<expiry>.<hex HMAC-SHA256(secret, "product:userid:expiry")>`,
///   valid until its expiry; checked with swift-crypto's constant-time MAC comparison.
/// - ``pugpigSHA1``: Pugpig's reference scheme, `hex(sha1("product:userid:secret"))`, for content
///   servers that already use it: compatible but weak (SHA-1, never expires); compared in
///   constant time.
public enum EditionPasswordScheme: String, Sendable, Hashable, Codable, CaseIterable {
    /// `v1.<expiry>.<hex HMAC-SHA256>`: bound to product, user and expiry (the default).
    case hmacSHA256 = "hmac-sha256"
    /// Pugpig's reference `sha1(product:userid:secret)`, for compatibility.
    case pugpigSHA1 = "pugpig-sha1"

    /// The password for `userID` reading `product`, valid until `expiry` (ignored by ``pugpigSHA1``).
    public func password(product: String, userID: String, expiry: Date, secret: SymmetricKey) -> String {
        switch self {
        case .hmacSHA256:
            let seconds = Int(expiry.timeIntervalSince1970)
            return "v1.\(seconds).\(Hex.string(HMAC<SHA256>.authenticationCode(for: Data("\(product):\(userID):\(seconds)".utf8), using: secret)))"
        case .pugpigSHA1:
            return Hex.string(Insecure.SHA1.hash(data: Data("\(product):\(userID):\(Self.text(of: secret))".utf8)))
        }
    }

    /// True when `password` is a valid, unexpired password for `userID` reading `product`.
    public func verify(_ password: String, product: String, userID: String, now: Date, secret: SymmetricKey) -> Bool {
        switch self {
        case .hmacSHA256:
            let parts = password.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "v1", let seconds = Int(parts[1]), let mac = Hex.decodeLowercase(String(parts[2])) else { return false }
            guard Date(timeIntervalSince1970: TimeInterval(seconds)) > now else { return false }
            return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data("\(product):\(userID):\(seconds)".utf8), using: secret)
        case .pugpigSHA1:
            return ConstantTime.equals(self.password(product: product, userID: userID, expiry: now, secret: secret), password.lowercased())
        }
    }

    /// The secret as the text Pugpig's scheme concatenates.
    static func text(of secret: SymmetricKey) -> String {
        secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }
}
