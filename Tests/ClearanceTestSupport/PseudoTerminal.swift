import Clearance
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program on a pseudo-terminal, as in a user's shell: its standard output and error are
/// the terminal side (`isatty` is true for both), and the test reads what it drew from the other
/// side, carriage returns included. The terminal's line discipline turns each `\n` into `\r\n`.
package enum PseudoTerminal {
    /// How a program run on a terminal ended, and everything it wrote to it.
    package struct Output: Sendable {
        package let status: Int32
        package let text: String
    }

    /// Runs `executable` with `arguments` on a new pseudo-terminal (standard input: /dev/null) to
    /// its end; kills it after `timeout` (stretched by ``TestTiming/scale``).
    package static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> Output {
        let (controller, terminal) = try open()
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let terminalHandle = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = terminalHandle
        process.standardError = terminalHandle
        do {
            try process.run()
        } catch {
            close(terminal)
            close(controller)
            throw ChildProcess.Failure("Cannot start \(executable.path) on a pseudo-terminal: \(error)")
        }
        // Only the child holds the terminal side now. Another test's child started meanwhile may
        // have inherited it too, so the end is not awaited as EOF: once the child has exited and
        // nothing is left to read, the reading stops.
        close(terminal)
        let captured = Locked((text: Data(), exited: false, done: false))
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var watched = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            while true {
                let ready = poll(&watched, 1, 50)
                if ready > 0 {
                    let count = buffer.withUnsafeMutableBytes { readDescriptor(controller, $0.baseAddress, $0.count) }
                    if count > 0 {
                        captured.withLock { $0.text.append(contentsOf: buffer[0..<count]) }
                        continue
                    }
                    if count < 0, errno == EINTR { continue }
                    break  // EIO: every terminal side is closed
                }
                if ready < 0, errno == EINTR { continue }
                if ready < 0 || captured.withLock({ $0.exited }) { break }
            }
            captured.withLock { $0.done = true }
        }
        reader.start()
        let deadline = ContinuousClock.now + TestTiming.scaled(timeout)
        while !captured.withLock({ $0.done }) {
            if !process.isRunning { captured.withLock { $0.exited = true } }
            if ContinuousClock.now >= deadline {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                captured.withLock { $0.exited = true }
                // sleep: the pace of the poll, not a wait.
                while !captured.withLock({ $0.done }) { try? await Task.sleep(for: .milliseconds(10)) }
                close(controller)
                let text = String(decoding: captured.withLock { $0.text }, as: UTF8.self)
                throw ChildProcess.Failure("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(timeout) on a pseudo-terminal; it wrote: \(text.suffix(2_000))")
            }
            // sleep: the pace of the poll, not a wait.
            try? await Task.sleep(for: .milliseconds(10))
        }
        process.waitUntilExit()
        close(controller)
        return Output(status: process.terminationStatus, text: String(decoding: captured.withLock { $0.text }, as: UTF8.self))
    }

    /// A new pseudo-terminal (`openpty(3)`): the controlling side and the terminal side, both open.
    private static func open() throws -> (controller: Int32, terminal: Int32) {
        var controller: Int32 = -1, terminal: Int32 = -1
        guard openpty(&controller, &terminal, nil, nil, nil) == 0 else {
            throw ChildProcess.Failure("openpty: \(String(cString: strerror(errno)))")
        }
        // Neither is for other children (the terminal side reaches ours through dup2).
        _ = fcntl(controller, F_SETFD, FD_CLOEXEC)
        _ = fcntl(terminal, F_SETFD, FD_CLOEXEC)
        return (controller, terminal)
    }
}
