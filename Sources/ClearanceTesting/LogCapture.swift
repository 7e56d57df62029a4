import Clearance
import Logging

/// A swift-log handler that keeps every line (level, message and metadata) at trace level, so a
/// test can search what was logged, e.g. for secrets:
///
/// ```swift
/// let logs = LogCapture()
/// let source = CachingCredentialSource(upstream, logger: logs.logger())
/// _ = try await source.credential()
/// #expect(!logs.text.contains(token))
/// ```
public final class LogCapture: Sendable {
    private let lines = Locked<[String]>([])

    public init() {}

    /// Every line so far, oldest first.
    public var all: [String] { lines.withLock { $0 } }
    /// Every line so far, joined by newlines.
    public var text: String { all.joined(separator: "\n") }

    /// A logger at trace level that writes into this capture.
    public func logger(_ label: String = "test") -> Logger {
        var logger = Logger(label: label) { label in
            LineLogHandler(label: label, logLevel: .trace) { line in
                self.append("\(line.level) [\(line.source)] \(line.message) \(line.metadata)")
            }
        }
        logger.logLevel = .trace
        return logger
    }

    func append(_ line: String) { lines.withLock { $0.append(line) } }
}
