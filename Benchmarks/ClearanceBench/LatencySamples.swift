import Foundation

/// Delivery latencies and subscription confirmations gathered by many client tasks at once.
final class LatencySamples: @unchecked Sendable {

    private let lock = NSLock()
    private var latencies: [UInt64] = []
    private var subscribed = 0

    func addLatency(_ nanoseconds: UInt64) {
        lock.lock()
        latencies.append(nanoseconds)
        lock.unlock()
    }

    func addSubscribed() {
        lock.lock()
        subscribed += 1
        lock.unlock()
    }

    var latencyCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return latencies.count
    }

    var subscribedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return subscribed
    }

    var sortedLatencies: [UInt64] {
        lock.lock()
        defer { lock.unlock() }
        return latencies.sorted()
    }

    /// The latencies from the `index`th recorded on (one phase of a run), in milliseconds at
    /// `fraction` (as ``percentile(_:)``).
    func percentile(_ fraction: Double, from index: Int) -> Double {
        lock.lock()
        let phase = latencies.dropFirst(index).sorted()
        lock.unlock()
        guard !phase.isEmpty else { return .nan }
        return Double(phase[min(phase.count - 1, Int(Double(phase.count) * fraction))]) / 1_000_000
    }

    /// The latency at `fraction` (0.5: the median, 0.99, 1: the maximum) in milliseconds;
    /// NaN without samples.
    func percentile(_ fraction: Double) -> Double {
        let sorted = sortedLatencies
        guard !sorted.isEmpty else { return .nan }
        return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]) / 1_000_000
    }
}
