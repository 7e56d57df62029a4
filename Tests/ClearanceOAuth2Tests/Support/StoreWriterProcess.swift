import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `clearance session stress-write` child process: writes numbered sessions in a loop and
/// prints each generation once it is durable.
final class StoreWriterProcess {
    /// What the child printed, filled by a reader thread.
    private final class Output: Sendable {
        let text = Mutex("")
    }

    private let process: Process
    private let output = Output()
    private let reader: Thread?

    init(executable: URL, store: URL, keyFile: URL, start: Int) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = ["session", "stress-write", "--store", store.path, "--key-file", keyFile.path, "--start", "\(start)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = pipe.fileHandleForReading
        let output = self.output
        let thread = Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }
        thread.start()
        reader = thread
    }

    /// The generations the child reported durable so far.
    var committed: [Int] {
        output.text.withLock { text in
            // Only complete lines: a kill can cut the last one.
            text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(text.hasSuffix("\n") ? 0 : 1).compactMap { Int($0) }
        }
    }

    /// Kills the child with SIGKILL and waits for it (and for its output to be read to the end).
    func kill() async {
        _ = sendSignal(process.processIdentifier, SIGKILL)
        while process.isRunning { try? await Task.sleep(for: .milliseconds(1)) }
        while reader?.isFinished == false { try? await Task.sleep(for: .milliseconds(1)) }
    }
}

private func sendSignal(_ pid: Int32, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}
