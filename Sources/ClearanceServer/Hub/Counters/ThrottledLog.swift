import Clearance
import Logging

/// A log line for something that can happen thousands of times a second under attack (a socket
/// refused, a message that does not open): the first occurrence is logged at once, the next
/// ones at most once per ``interval``, each line saying how many happened since the last one
/// (`count`) and in all (`total`). The log stays readable and costs nothing when flooded.
package final class ThrottledLog: Sendable {
    private struct State {
        var lastLogged: ContinuousClock.Instant?
        var unlogged = 0
        var total = 0
    }

    /// The shortest time between two lines.
    package let interval: Duration
    private let logger: Logger
    private let level: Logger.Level
    private let message: Logger.Message
    private let state = Locked(State())
    /// One throttle per app for ``record(appID:_:now:)``, so that one app's flood never hides
    /// another's line.
    private let perApp = Locked([String: State]())

    /// - Parameters:
    ///   - message: The line's message (a stable event name, such as `hub.socket.refused`).
    ///   - interval: The shortest time between two lines (default 10 s).
    package init(_ message: Logger.Message, level: Logger.Level = .warning, interval: Duration = .seconds(10), logger: Logger) {
        self.message = message
        self.level = level
        self.interval = interval
        self.logger = logger
    }

    /// One occurrence, with `metadata` (the occurrence's, logged when its line is written).
    package func record(_ metadata: @autoclosure () -> Logger.Metadata = [:], now: ContinuousClock.Instant = .now) {
        let counts = state.withLock { Self.occurred(&$0, now: now, interval: interval) }
        guard let counts else { return }
        write(metadata(), counts)
    }

    /// One occurrence of app `appID`, throttled apart from every other app's, its line carrying
    /// `app_id`.
    package func record(appID: String, _ metadata: @autoclosure () -> Logger.Metadata = [:], now: ContinuousClock.Instant = .now) {
        let counts = perApp.withLock { Self.occurred(&$0[appID, default: State()], now: now, interval: interval) }
        guard let counts else { return }
        var all = metadata()
        all["app_id"] = "\(appID)"
        write(all, counts)
    }

    private static func occurred(_ state: inout State, now: ContinuousClock.Instant, interval: Duration) -> (count: Int, total: Int)? {
        state.unlogged += 1
        state.total += 1
        if let last = state.lastLogged, now - last < interval { return nil }
        state.lastLogged = now
        defer { state.unlogged = 0 }
        return (state.unlogged, state.total)
    }

    private func write(_ metadata: Logger.Metadata, _ counts: (count: Int, total: Int)) {
        var all = metadata
        all["count"] = "\(counts.count)"
        all["total"] = "\(counts.total)"
        logger.log(level: level, message, metadata: all)
    }
}
