import Foundation

/// How the benchmarks time things and print figures against their baselines.
enum Measure {
    /// Seconds per iteration of `body` over `iterations`, after a warm-up of a tenth.
    static func secondsPerIteration(_ iterations: Int, _ body: (Int) -> Void) -> Double {
        for index in 0..<max(1, iterations / 10) { body(index) }
        let start = ContinuousClock.now
        for index in 0..<iterations { body(index) }
        return seconds(ContinuousClock.now - start) / Double(iterations)
    }

    /// Nanoseconds per call of an async `body` over `iterations`, after a warm-up.
    static func nanosecondsPerCall(_ iterations: Int, _ body: () async throws -> Void) async throws -> Double {
        for _ in 0..<min(iterations, 10_000) { try await body() }
        let start = ContinuousClock.now
        for _ in 0..<iterations { try await body() }
        return seconds(ContinuousClock.now - start) * 1e9 / Double(iterations)
    }

    /// `duration` in seconds.
    /// The median of `values` (the mean of the two middle ones for an even count; 0 for none).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Polls `condition` until it holds (`true`) or `timeout` passes (`false`).
    static func wait(upTo timeout: Duration, until condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Prints a baseline line.
    static func printBaseline(_ label: String, _ value: Double, _ format: String) {
        print("  " + label.padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: format, value))
    }

    /// Prints one figure against its baseline, with its target when it has one.
    static func printRatio(_ label: String, _ value: Double, unit: String, baseline: Double, target: Double?) {
        let ratio = value / baseline
        let verdict = target.map { ratio <= $0 ? "  (target ≤ \(String(format: "%.1f", $0))×: met)" : "  (target ≤ \(String(format: "%.1f", $0))×: NOT met)" } ?? ""
        print("  " + label.padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: "%10.1f ", value) + unit + String(format: "   %.2f× baseline", ratio) + verdict)
    }
}

/// A figure that could not be measured, and why.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
