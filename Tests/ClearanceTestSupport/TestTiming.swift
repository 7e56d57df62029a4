import Foundation

/// How the suite's waits and workloads fit the machine it runs on.
///
/// - ``scale``: `CLEARANCE_TEST_TIME_SCALE` (1 to 20; 1 when unset or not a number). Every
///   waiting helper (`eventually`, `first`, `within`, `retrying`, a child process's lines and
///   exit, a test WebSocket's frames and close, a raw socket's answer) stretches the timeout it
///   is given by it, once; a caller passes durations as written. CI sets it for all its steps
///   (`.ci/run`: its machine is loaded), and `scripts/sanitize` multiplies it by its sanitizer's
///   slowdown. A larger scale only makes a failing wait give up later: a test that passes does so
///   as soon as its condition holds.
/// - ``slowdown``: `CLEARANCE_SANITIZER_SLOWDOWN` (1 when unset), set by `scripts/sanitize` only.
///   Timing promises (a deadline's slack) and workload sizes follow it, not ``scale``, so that the
///   ordinary run keeps every promise as written, on CI too.
package enum TestTiming {
    package static let scale: Int = factor("CLEARANCE_TEST_TIME_SCALE")

    package static let slowdown: Int = factor("CLEARANCE_SANITIZER_SLOWDOWN")

    /// Whether a sanitizer slows this run: tests that measure memory or push load cut their work.
    package static var sanitized: Bool { slowdown > 1 }

    /// `duration` stretched by ``scale``: for the waiting helpers.
    package static func scaled(_ duration: Duration) -> Duration {
        duration * scale
    }

    /// `duration` stretched by ``slowdown``: for a timing promise's slack.
    package static func slowed(_ duration: Duration) -> Duration {
        duration * slowdown
    }

    private static func factor(_ name: String) -> Int {
        guard let text = ProcessInfo.processInfo.environment[name], let value = Int(text) else { return 1 }
        return min(max(value, 1), 20)
    }
}
