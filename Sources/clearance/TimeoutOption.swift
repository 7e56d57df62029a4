import ArgumentParser
import ClearanceHTTP
import Foundation

/// `--timeout SECONDS`: the deadline of every request a command sends (head and body
/// together), 60 s when not given.
enum TimeoutOption {
    /// The help text of the option.
    static let help: ArgumentHelp = "The deadline of each request in seconds, head and body together (default 60)."

    static func validate(_ seconds: Double?) throws {
        if let seconds, !(seconds > 0 && seconds <= 86_400) {
            throw ValidationError("--timeout is a number of seconds, more than 0 and at most 86400.")
        }
    }

    static func duration(_ seconds: Double?) -> Duration {
        .milliseconds(Int64(((seconds ?? 60) * 1_000).rounded()))
    }

    /// The transport of the OAuth 2.0 and OpenID Connect requests, under the deadline.
    static func transport(_ seconds: Double?) -> any HTTPTransport {
        AsyncHTTPClientHTTPTransport.shared.withTimeout(duration(seconds))
    }
}
