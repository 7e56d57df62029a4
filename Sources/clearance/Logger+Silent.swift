import Logging

extension Logger {
    /// A logger that drops everything: for the embedded servers and clients of `demo` and `bench`,
    /// whose own report is the output.
    static func silent(_ label: String) -> Logger {
        Logger(label: label) { _ in SwiftLogNoOpLogHandler() }
    }
}
