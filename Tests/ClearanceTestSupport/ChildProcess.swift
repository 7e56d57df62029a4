import Clearance
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program the tests run as users do: as its own process, its output read as it comes, and
/// stopped with a real signal (SIGTERM, SIGINT, SIGKILL).
package final class ChildProcess: Sendable {
    /// A test-infrastructure failure with a message that says what to do.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }

    /// How a process that ran to its end ended.
    package struct Output: Sendable {
        package let status: Int32
        package let stdout: String
        package let stderr: String
    }

    /// The program and its arguments, for messages.
    package let commandLine: String
    private let process: Process
    private let stdinPipe: Pipe
    private let captured = Locked((stdout: Data(), stderr: Data(), readersDone: 0))
    /// Whether the test asked it to end (``stop(_:)`` or ``send(_:)``).
    private let endAsked = Locked(false)

    private init(process: Process, stdin: Pipe, commandLine: String) {
        self.process = process
        self.stdinPipe = stdin
        self.commandLine = commandLine
    }

    /// Starts `executable`; its standard output and error are read as they come.
    package static func start(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], workingDirectory: URL? = nil) throws -> ChildProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let child = ChildProcess(process: process, stdin: stdin, commandLine: ([executable.lastPathComponent] + arguments).joined(separator: " "))
        do {
            try process.run()
        } catch {
            throw Failure("Cannot start \(executable.path): \(error)")
        }
        child.read(stdout.fileHandleForReading, isError: false)
        child.read(stderr.fileHandleForReading, isError: true)
        return child
    }

    /// Runs `executable` to its end with `input` on standard input; kills it after `timeout`
    /// (stretched by ``TestTiming/scale``).
    package static func run(_ executable: URL, _ arguments: [String], input: Data? = nil, environment: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> Output {
        let child = try start(executable, arguments, environment: environment)
        if let input { child.write(input) }
        child.closeInput()
        guard await child.waitForExit(timeout: timeout) else {
            await child.stop(.kill)
            throw Failure("\(child.commandLine) did not finish within \(timeout); stdout: \(child.stdout.suffix(2_000)) stderr: \(child.stderr.suffix(2_000))")
        }
        return Output(status: child.status, stdout: child.stdout, stderr: child.stderr)
    }

    /// The process id.
    package var pid: Int32 { process.processIdentifier }
    /// Whether it is still running.
    package var isRunning: Bool { process.isRunning }
    /// Its exit status (or the signal that ended it), once it has ended.
    package var status: Int32 { process.terminationStatus }
    /// Everything it wrote to standard output so far.
    package var stdout: String { String(decoding: captured.withLock { $0.stdout }, as: UTF8.self) }
    /// Everything it wrote to standard error so far.
    package var stderr: String { String(decoding: captured.withLock { $0.stderr }, as: UTF8.self) }

    /// Whether it ended although nothing asked it to (no ``stop(_:)``, no ``send(_:)``): a crash,
    /// or an exit of its own.
    package var endedUnasked: Bool { !process.isRunning && !endAsked.withLock { $0 } }

    /// How it ended, for messages: its exit status, or the signal that ended it.
    package var ending: String {
        guard !process.isRunning else { return "still running" }
        return process.terminationReason == .uncaughtSignal ? "ended by signal \(status)" : "exited with status \(status)"
    }

    /// Sends `signal` to it, as an ending the test asked for (see ``endedUnasked``); false when
    /// it could not be sent.
    @discardableResult
    package func send(_ signal: Int32) -> Bool {
        endAsked.withLock { $0 = true }
        return kill(pid, signal) == 0
    }

    /// Writes to its standard input.
    package func write(_ data: Data) { stdinPipe.fileHandleForWriting.write(data) }

    /// Closes its standard input (some peers exit when it closes).
    package func closeInput() { try? stdinPipe.fileHandleForWriting.close() }

    /// The first complete output line for which `match` holds, waiting up to `timeout` (stretched
    /// by ``TestTiming/scale``); nil when the process ended or the time ran out first.
    package func line(timeout: Duration, where match: (Substring) -> Bool) async -> String? {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while true {
            let text = stdout
            let complete = text.hasSuffix("\n") ? Substring(text) : text[..<(text.lastIndex(of: "\n") ?? text.startIndex)]
            if let line = complete.split(separator: "\n").first(where: match) { return String(line) }
            let drained = captured.withLock { $0.readersDone == 2 }
            if (!process.isRunning && drained) || ContinuousClock.now >= deadline { return nil }
            // sleep: the pace of the poll, not a wait.
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// How to stop a process.
    package enum Stop: Sendable {
        /// SIGTERM (a planned shutdown), then SIGKILL after `grace`.
        case terminate(grace: Duration)
        /// SIGINT (Ctrl-C), then SIGKILL after `grace`.
        case interrupt(grace: Duration)
        /// SIGKILL at once (a crash).
        case kill
    }

    /// Sends the signal and waits for the process to end (and its output to be read to the end).
    package func stop(_ how: Stop = .terminate(grace: .seconds(10))) async {
        endAsked.withLock { $0 = true }
        switch how {
        case .terminate(let grace): await signal(SIGTERM, escalatingAfter: grace)
        case .interrupt(let grace): await signal(SIGINT, escalatingAfter: grace)
        case .kill: await signal(SIGKILL, escalatingAfter: .seconds(5))
        }
        closeInput()
    }

    /// Waits until the process ends; false when `timeout` (stretched by ``TestTiming/scale``)
    /// passed first.
    package func waitForExit(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while process.isRunning || captured.withLock({ $0.readersDone < 2 }) {
            guard ContinuousClock.now < deadline else { return false }
            // sleep: the pace of the poll, not a wait.
            try? await Task.sleep(for: .milliseconds(10))
        }
        process.waitUntilExit()
        return true
    }

    private func signal(_ number: Int32, escalatingAfter grace: Duration) async {
        if process.isRunning { _ = kill(pid, number) }
        if await waitForExit(timeout: grace) { return }
        if process.isRunning { _ = kill(pid, SIGKILL) }
        _ = await waitForExit(timeout: .seconds(10))
    }

    /// Reads `handle` to its end on a thread of its own (never on the cooperative pool), with
    /// `read(2)` itself: a read interrupted by a signal (SIGCHLD, with several children) is
    /// tried again, where `FileHandle.availableData` would stop the process.
    private func read(_ handle: FileHandle, isError: Bool) {
        let captured = captured
        let descriptor = handle.fileDescriptor
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { readDescriptor(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let chunk = Data(buffer[0..<count])
                captured.withLock { if isError { $0.stderr.append(chunk) } else { $0.stdout.append(chunk) } }
            }
            captured.withLock { $0.readersDone += 1 }
        }
        thread.start()
    }
}

/// `read(2)`, named apart from ``ChildProcess``'s own `read` (``PseudoTerminal`` reads with it too).
func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.read(descriptor, buffer, count)
    #else
    Darwin.read(descriptor, buffer, count)
    #endif
}
