import Clearance
import Logging

/// A swift-log handler that keeps every line (level, message and metadata) at trace level, so a
/// test can search what was logged, e.g. for secrets:
///
/// ```swift
/// let logs = LogCapture()
/// let source = CachingCredentialSource(upstream, logger: logs.logger())
/// …
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
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            capture.append("\(event.level) [\(event.source)] \(event.message) \(rendered)")
        }
    }
}
