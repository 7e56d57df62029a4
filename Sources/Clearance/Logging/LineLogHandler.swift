import Logging

/// A swift-log handler that hands every line to a closure, its metadata (the handler's and the
/// line's) rendered once as sorted `key=value` pairs: what `LogCapture` (ClearanceTesting) and
/// the demo's per-step log are built on.
package struct LineLogHandler: LogHandler {
    /// One logged line.
    package struct Line: Sendable {
        package let level: Logger.Level
        package let label: String
        package let message: String
        /// Sorted `key=value` pairs, space-separated; empty without metadata.
        package let metadata: String
        package let source: String
    }

    package let label: String
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level
    private let receive: @Sendable (Line) -> Void

    /// A handler for the logger `label` that passes lines at `logLevel` and above to `receive`.
    package init(label: String, logLevel: Logger.Level, receive: @escaping @Sendable (Line) -> Void) {
        self.label = label
        self.logLevel = logLevel
        self.receive = receive
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        receive(Line(level: event.level, label: label, message: "\(event.message)", metadata: rendered, source: event.source))
    }
}
