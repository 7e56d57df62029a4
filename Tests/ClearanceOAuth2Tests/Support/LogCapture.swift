import Foundation
import Logging
import Synchronization

/// Collects every log line (message and metadata) at trace level, for searching for secrets.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    /// A logger at trace level that writes here.
    func logger(_ label: String = "test") -> Logger {
        var logger = Logger(label: label) { label in CapturingLogHandler(label: label, capture: self) }
        logger.logLevel = .trace
        return logger
    }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var all: [String] { lines.withLock { $0 } }

    /// The lines that contain `secret`.
    func lines(containing secret: String) -> [String] {
        all.filter { $0.contains(secret) }
    }
}

/// A swift-log handler that renders each event into one line.
struct CapturingLogHandler: LogHandler {
    let label: String
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
        let error = event.error.map { " error=\(String(describing: $0))" } ?? ""
        capture.append("\(event.level) [\(label)] \(event.message) \(rendered)\(error) @\(event.source)")
    }
}
