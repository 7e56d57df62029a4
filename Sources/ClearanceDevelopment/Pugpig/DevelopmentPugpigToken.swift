import ClearanceSigning
import Crypto
import Foundation

/// The development server's tokens: `<hex user id>.<issued at, ms since 1970>.<hex HMAC-SHA256>`,
/// so they need no storage and survive a restart with the same secret. Stale after the token
/// lifetime, renewable within the renewal window. (The issue time is in milliseconds: in whole
/// seconds a token issued late in a second went stale up to a second early, and a one-second
/// lifetime could hand out tokens already stale.)
struct DevelopmentPugpigToken: Equatable {
    var userID: String
    /// Milliseconds since 1970.
    var issuedAtMilliseconds: Int

    /// A token for `userID` issued at `date`.
    init(userID: String, issuedAt date: Date) {
        self.userID = userID
        self.issuedAtMilliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The token `text` holds, when its MAC verifies.
    init?(verifying text: String, secret: SymmetricKey) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let issuedAtMilliseconds = Int(parts[1]), let mac = Hex.decodeLowercase(String(parts[2])),
              let userBytes = Hex.decodeLowercase(String(parts[0])),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: secret)
        else { return nil }
        self.userID = String(decoding: userBytes, as: UTF8.self)
        self.issuedAtMilliseconds = issuedAtMilliseconds
    }

    /// The signed text.
    func text(secret: SymmetricKey) -> String {
        let body = "\(Hex.string(Array(userID.utf8))).\(issuedAtMilliseconds)"
        return "\(body).\(Hex.string(HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: secret)))"
    }

    /// When the token was issued.
    var issuedAt: Date { Date(timeIntervalSince1970: TimeInterval(issuedAtMilliseconds) / 1000) }

    /// Seconds since the token was issued.
    func age(at now: Date) -> TimeInterval { now.timeIntervalSince(issuedAt) }
}
