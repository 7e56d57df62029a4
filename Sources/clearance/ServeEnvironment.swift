import ArgumentParser
import Foundation

/// The `CLEARANCE_…` environment variables of `clearance serve`: each option's value when the
/// command line does not give it. Flags win over the environment, which wins over the
/// configuration file, which wins over the defaults. The variable of `--log-level` is
/// `CLEARANCE_LOG_LEVEL` (``variable(for:)``); the secrets keep the names they always had
/// (`CLEARANCE_APP_SECRET`, `CLEARANCE_BACKPLANE_URL`, `CLEARANCE_CLUSTER_KEY`: ``SecretInput``).
/// An empty variable counts as unset; a value that does not parse is an error naming the variable.
///
/// (swift-configuration's `EnvironmentVariablesProvider` was weighed: its non-throwing getters
/// fall back to the default on a value that does not convert, and its throwing ones report the
/// configuration key, not the variable, with an error type callers cannot switch on; the
/// secrets already resolve through ``SecretInput``. A dozen plain look-ups say more.)
struct ServeEnvironment {
    /// The process's environment (or a test's).
    let variables: [String: String]

    init(_ variables: [String: String] = ProcessInfo.processInfo.environment) {
        self.variables = variables
    }

    /// `--tls-certificate` → `CLEARANCE_TLS_CERTIFICATE`.
    static func variable(for flag: String) -> String {
        "CLEARANCE_" + flag.drop { $0 == "-" }.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// `value` (the flag's) if given, else the flag's variable (non-empty), else nil.
    func string(_ flag: String, _ value: String?) -> String? {
        value ?? variables[Self.variable(for: flag)].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `value` (the flag's) if given, else the flag's variable as a whole number in `range`, else nil.
    /// - Throws: `ValidationError` naming the variable when it is not a whole number in `range`.
    func int(_ flag: String, _ value: Int?, in range: ClosedRange<Int>) throws -> Int? {
        if let value { return value }
        guard let text = string(flag, nil) else { return nil }
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
            throw ValidationError("\(Self.variable(for: flag)) is '\(text.prefix(100))': a whole number in \(range.lowerBound)…\(range.upperBound) is expected (as for \(flag)).")
        }
        return number
    }
}
