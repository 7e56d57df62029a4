import ClearanceSigning
import Crypto
import Foundation

/// The development server's tokens: `<hex user id>.<issued at>.<hex HMAC-SHA256>`, so they
/// need no storage and survive a restart with the same secret. Stale after the token lifetime,
/// renewable within the renewal window.
struct DevelopmentPugpigToken: Equatable {
    var userID: String
    var issuedAt: Int

    /// A token for `userID` issued at `date`.
    init(userID: String, issuedAt date: Date) {
        self.userID = userID
        self.issuedAt = Int(date.timeIntervalSince1970)
    }

    /// The token `text` holds, when its MAC verifies.
    init?(verifying text: String, secret: SymmetricKey) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let issuedAt = Int(parts[1]), let mac = Hex.decodeLowercase(String(parts[2])),
              let userBytes = Hex.decodeLowercase(String(parts[0])),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: secret)
        else { return nil }
        self.userID = String(decoding: userBytes, as: UTF8.self)
        self.issuedAt = issuedAt
    }

    /// The signed text.
    func text(secret: SymmetricKey) -> String {
        let body = "\(Hex.string(Array(userID.utf8))).\(issuedAt)"
        return "\(body).\(Hex.string(HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: secret)))"
    }

    /// Seconds since the token was issued.
    func age(at now: Date) -> TimeInterval { now.timeIntervalSince1970 - TimeInterval(issuedAt) }
}
