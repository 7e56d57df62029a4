import Clearance

/// What the development Pugpig endpoints answered, by endpoint: for tests and the demo ("one
/// renewal"). Never a token or a password.
public final class DevelopmentPugpigStats: Sendable {
    private let counts = Locked<[String: Int]>([:])

    public init() {}

    func record(_ endpoint: String) {
        counts.withLock { $0[endpoint, default: 0] += 1 }
    }

    /// Calls of `endpoint` so far (`sign_in`, `renew_token`, `verify_subscription`,
    /// `edition_credentials`, `sign_out`, `content`, `content_refused`).
    public func count(_ endpoint: String) -> Int { counts.withLock { $0[endpoint] ?? 0 } }
}
