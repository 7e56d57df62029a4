import ArgumentParser
import Foundation

/// Where a command's secret comes from, first match wins:
///
/// - `--NAME -`: standard input (one trailing newline dropped);
/// - `--NAME-file PATH`: the file's contents (one trailing newline dropped);
/// - `--NAME VALUE`: works, with a warning on standard error (the command line shows in `ps`
///   and in shell history);
/// - the environment variable ``environment`` (e.g. `CLEARANCE_APP_SECRET`).
struct SecretInput {
    /// The option, e.g. `--secret`.
    let flag: String
    /// The environment variable read when neither the option nor its file is given.
    let environment: String

    /// The secret, or nil when none was given anywhere.
    /// - Parameters:
    ///   - useEnvironment: false to ignore ``environment`` (the caller reads ``environmentValue`` later).
    ///   - warnsOnCommandLine: whether a value given on the command line (not `-`) is warned
    ///     about (false for a value that holds no secret, such as a URL without a password).
    func resolve(value: String?, file: String?, useEnvironment: Bool = true, warnsOnCommandLine: Bool = true) throws -> String? {
        if value != nil && file != nil { throw ValidationError("Give \(flag) or \(flag)-file, not both.") }
        if let value {
            if value == "-" { return try Self.nonEmpty(FileHandle.standardInput.readDataToEndOfFile(), from: "standard input", for: flag) }
            guard warnsOnCommandLine else { return value }
            FileHandle.standardError.write(Data("""
                warning: \(flag) puts the secret on the command line, where `ps` and shell history show it; \
                use \(flag) - (standard input), \(flag)-file PATH or \(environment).\n
                """.utf8))
            return value
        }
        if let file {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
                throw ValidationError("\(flag)-file: cannot read '\(file)'.")
            }
            return try Self.nonEmpty(data, from: "'\(file)'", for: flag)
        }
        return useEnvironment ? environmentValue : nil
    }

    /// The (non-empty) value of ``environment``, if set.
    /// The secret from the flag's value, its file flag, the variable, or the file the variable
    /// `fileVariable` names (`CLEARANCE_SECRET_FILE`), in that order; both variables set is
    /// refused, and a file that cannot be read is named by its variable.
    func resolve(value: String?, file: String?, fileVariable: String, warnsOnCommandLine: Bool = true) throws -> String? {
        guard value == nil && file == nil else { return try resolve(value: value, file: file, warnsOnCommandLine: warnsOnCommandLine) }
        let path = ProcessInfo.processInfo.environment[fileVariable].flatMap { $0.isEmpty ? nil : $0 }
        if environmentValue != nil, path != nil { throw ValidationError("Both \(environment) and \(fileVariable) are set: give one.") }
        do {
            return try resolve(value: nil, file: path)
        } catch let error as ValidationError {
            throw ValidationError("\(fileVariable): \(error.message)")
        }
    }

    var environmentValue: String? {
        ProcessInfo.processInfo.environment[environment].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `data` without one trailing newline (LF or CRLF), as a secret read from a pipe or a file ends.
    static func trimmingNewline(_ data: Data) -> Data {
        var bytes = data
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return bytes
    }

    /// `data` as UTF-8 without one trailing newline (LF or CRLF); an error when nothing is left.
    private static func nonEmpty(_ data: Data, from source: String, for flag: String) throws -> String {
        let bytes = trimmingNewline(data)
        guard !bytes.isEmpty, let text = String(data: bytes, encoding: .utf8) else {
            throw ValidationError("\(flag): no secret in \(source).")
        }
        return text
    }
}
