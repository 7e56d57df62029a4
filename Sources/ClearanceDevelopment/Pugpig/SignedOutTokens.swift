import Foundation

/// The tokens signed out at the development Pugpig endpoints, bounded by count and age: each is
/// kept until it is past its renewal window (then it is refused anyway), at most ``limit`` of
/// them. When more are signed out within one window, the one that expires first gives way, and
/// its user's tokens issued up to it are refused from then on: a forgotten sign-out never brings
/// a token back.
struct SignedOutTokens: Sendable {
    /// The most tokens remembered one by one.
    static let limit = 10_000

    private var tokens = ExpiringRecords<String, DevelopmentPugpigToken>()
    /// Per user, the issue time (ms since 1970) up to which every token is signed out.
    private var signedOutUpTo: [String: Int] = [:]

    mutating func insert(_ text: String, _ token: DevelopmentPugpigToken, renewalWindow: TimeInterval, now: Date) {
        let expiresAt = token.issuedAt + renewalWindow
        guard expiresAt > now else { return }
        for evicted in tokens.insert(text, token, expiresAt: expiresAt, now: now, limit: Self.limit) {
            signedOutUpTo[evicted.userID] = max(signedOutUpTo[evicted.userID] ?? .min, evicted.issuedAtMilliseconds)
        }
    }

    func contains(_ text: String, _ token: DevelopmentPugpigToken, now: Date) -> Bool {
        tokens.value(text, now: now) != nil || token.issuedAtMilliseconds <= signedOutUpTo[token.userID] ?? .min
    }

    /// The tokens remembered one by one (expired ones not yet dropped included).
    var count: Int { tokens.storedCount }
}
