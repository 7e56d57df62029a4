import Foundation

/// The time source of an OAuth 2.0 session.
///
/// Two readings, for two jobs: ``now`` (wall-clock time) turns a response's `expires_in` into
/// an expiry date that can be stored and shown; ``uptime`` (monotonic) drives every decision
/// taken in the process (is the token about to expire, is the refresh window full, has the
/// backoff passed), so changing the device clock never makes a token look fresh or stale.
/// Tests inject a manual clock; production uses ``SystemOAuth2Clock``.
public protocol OAuth2Clock: Sendable {
    /// Wall-clock time.
    var now: Date { get }
    /// Monotonic time since an arbitrary origin fixed for the process.
    var uptime: Duration { get }
    /// Suspends for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}
