import Foundation

/// When a failed webhook is tried again: exponential back-off from a first delay, doubling up to
/// a ceiling, less a random part of up to a half (so that many targets do not retry in step), and
/// whether its retry window is over.
struct WebhookBackoff: Sendable {
    /// The delay before the first retry.
    var firstDelay: Double
    /// The longest delay.
    var ceiling: Double = 60
    /// How long after it was queued an event is still tried.
    var retryDuration: Double

    /// The delay after `attempts` failed attempts (1 or more), with `random` in 0…1.
    func delay(afterAttempts attempts: Int, random: Double) -> Double {
        let exponent = Double(min(max(attempts - 1, 0), 30))
        let full = min(ceiling, firstDelay * pow(2, exponent))
        return full * (1 - 0.5 * min(max(random, 0), 1))
    }

    /// When to retry a batch first queued at `firstQueuedAt` that failed for the `attempts`th
    /// time at `now`, or `nil` when its window is over (it is dropped).
    func retry(firstQueuedAt: Date, attempts: Int, now: Date, random: Double = .random(in: 0...1)) -> Date? {
        let next = now.addingTimeInterval(delay(afterAttempts: attempts, random: random))
        return next.timeIntervalSince(firstQueuedAt) <= retryDuration ? next : nil
    }
}
