import Logging

extension Logger {
    /// A logger that drops everything: for the embedded servers and clients of the demo, the
    /// benchmarks and tests, whose own report is the output.
    package static func silent(_ label: String) -> Logger {
        Logger(label: label) { _ in SwiftLogNoOpLogHandler() }
    }
}
