import Clearance
import Foundation

/// Says what `clearance bench` is measuring while it measures, on standard error, so that a figure
/// that takes a minute is not a silent minute and the report on standard output stays as it was:
/// on a terminal, one status line that the next line of the report replaces; elsewhere (a pipe,
/// CI), a `measuring: …` line each time.
enum BenchStatus {
    private static let state = Locked((isTerminal: isatty(STDERR_FILENO) != 0, lineOpen: false, width: 0))

    /// Announces the figure about to be measured.
    static func measuring(_ what: String) {
        let text = "measuring: \(what)…"
        let output = state.withLock { state -> String in
            guard state.isTerminal else { return text + "\n" }
            let padding = max(0, state.width - text.count)
            state.width = max(state.width, text.count)
            state.lineOpen = true
            return "\r" + text + String(repeating: " ", count: padding)
        }
        FileHandle.standardError.write(Data(output.utf8))
    }

    /// Clears a status line still shown on a terminal, before the report goes on.
    static func clear() {
        let output = state.withLock { state -> String? in
            guard state.lineOpen else { return nil }
            defer { state.lineOpen = false; state.width = 0 }
            return "\r" + String(repeating: " ", count: state.width) + "\r"
        }
        if let output { FileHandle.standardError.write(Data(output.utf8)) }
    }
}

/// The report's lines: every `print` in the benchmarks clears the status line first, so a figure
/// never lands after a half-overwritten "measuring" on a terminal.
func print(_ line: String) {
    BenchStatus.clear()
    Swift.print(line)
}
