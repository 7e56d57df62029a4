import Clearance
import Foundation
import Logging

/// Where the demo's log lines go, so that its report stays readable: a line logged during a step
/// belongs to that step. What a step provokes on purpose (a misconfiguration is logged as an
/// error) is shown under it as `logged: …`; a warning or error nobody expected is shown under it
/// as `unexpected log: …`; other lines (info and below) are silenced. Outside a step, a warning
/// or error is written to standard error at once, as swift-log's own handler would: a real
/// problem is never hidden.
final class DemoLog: Sendable {
    /// The one the demo's `LoggingSystem` handler writes to.
    static let shared = DemoLog()

    /// One captured line.
    struct Line: Sendable, CustomStringConvertible {
        let level: Logger.Level
        let label: String
        let message: String
        let metadata: String

        var description: String { "\(level) \(label): \(message)\(metadata.isEmpty ? "" : " (\(metadata))")" }
    }

    private struct State {
        var installed = false
        var step: [Line]?
    }

    private let state = Locked(State())

    /// Whether the demo's handler is the process's logging system (``Demo/bootstrapLogging()``).
    var isInstalled: Bool { state.withLock { $0.installed } }

    func markInstalled() { state.withLock { $0.installed = true } }

    /// The handler for `label`, writing into this log (info and above).
    func handler(label: String) -> any LogHandler {
        LineLogHandler(label: label, logLevel: .info) { line in
            self.record(Line(level: line.level, label: line.label, message: line.message, metadata: line.metadata))
        }
    }

    /// Starts collecting the lines of a step.
    func beginStep() { state.withLock { $0.step = [] } }

    /// Stops collecting and returns the step's lines, waiting up to half a second for any
    /// `expected` line not seen yet (one logged just as the step ended).
    func endStep(expecting expected: [DemoLogExpectation]) async -> [Line] {
        let deadline = ContinuousClock.now + .milliseconds(500)
        while ContinuousClock.now < deadline {
            let lines = state.withLock { $0.step ?? [] }
            if expected.allSatisfy({ expectation in lines.contains { expectation.matches($0) } }) { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return state.withLock { state in
            defer { state.step = nil }
            return state.step ?? []
        }
    }

    private func record(_ line: Line) {
        let collected = state.withLock { state -> Bool in
            guard state.step != nil else { return false }
            state.step!.append(line)
            return true
        }
        if !collected && line.level >= .warning {
            let stamp = Date().formatted(.iso8601)
            FileHandle.standardError.write(Data("\(stamp) \(line.level) \(line.label): \(line.metadata.isEmpty ? "" : line.metadata + " ")\(line.message)\n".utf8))
        }
    }
}

/// A log line a demo step provokes on purpose: its logger's label and a part of its message.
struct DemoLogExpectation: Sendable, CustomStringConvertible {
    let label: String
    let message: String

    init(_ label: String, _ message: String) {
        self.label = label
        self.message = message
    }

    func matches(_ line: DemoLog.Line) -> Bool { line.label == label && line.message.contains(message) }

    var description: String { "\(label): \(message)" }
}
