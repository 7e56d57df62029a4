import Foundation

/// How much slower than usual the suite runs: `CLEARANCE_TEST_TIME_SCALE` (1 to 20; 1 when unset
/// or not a number). `scripts/sanitize` sets it, because ThreadSanitizer and AddressSanitizer
/// slow everything several times; the ordinary run (`scripts/test`) keeps every wait and every
/// timing promise as written.
package enum TestTiming {
    package static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["CLEARANCE_TEST_TIME_SCALE"], let value = Int(text) else { return 1 }
        return min(max(value, 1), 20)
    }()

    /// `duration` stretched by ``scale``.
    package static func scaled(_ duration: Duration) -> Duration {
        duration * scale
    }
}
