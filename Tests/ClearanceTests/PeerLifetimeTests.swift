import ClearanceTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Python peer ends with the test process that started it (`Tests/Interop/peer.py`), so that a
/// crashed or killed run leaves no server peer behind, holding its port and CPU into the next run.
@Suite struct PeerLifetimeTests {
    /// A shell stands for the test process: it starts the stalling server as ``PythonPeer`` does,
    /// says the peer's process id and waits. Once the peer listens (the positive control), the
    /// shell is killed; the peer must then end of its own.
    @Test func aPeerEndsWhenTheProcessThatStartedItIsGone() async throws {
        let command = ([try PythonPeer.interpreter().path] + (try PythonPeer.command("stalling_server.py", []))).map(Self.quoted).joined(separator: " ")
        let shell = try ChildProcess.start(URL(fileURLWithPath: "/bin/sh"), ["-c", "\(command) & echo \"peer $!\"; wait"])
        var peer: pid_t?
        defer {
            if let peer { kill(peer, SIGKILL) }
        }
        guard let line = await shell.line(timeout: .seconds(30), where: { $0.hasPrefix("peer ") }), let pid = pid_t(line.dropFirst("peer ".count)) else {
            await shell.stop(.kill)
            Issue.record("the shell did not say the peer's process id: \(shell.stderr.suffix(2_000))")
            return
        }
        peer = pid
        let listening = await shell.line(timeout: .seconds(30), where: { $0.hasPrefix("listening ") })
        guard listening != nil else {
            await shell.stop(.kill)
            Issue.record("the peer did not start: \(shell.stderr.suffix(2_000))")
            return
        }
        #expect(Self.isRunning(pid))

        // SIGKILL, then the wait for the shell's end (its output is read to the end once the
        // peer, which shares it, is gone too).
        await shell.stop(.kill)
        try await eventually("the peer \(pid) ends once the shell that started it is gone", timeout: .seconds(20)) { !Self.isRunning(pid) }
        peer = nil
    }

    /// Whether `pid` is a running process: alive and not a zombie waiting to be reaped.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0 else { return false }
        #if os(Linux)
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let state = stat.split(separator: ")").last?.split(separator: " ").first
        else { return false }
        return state != "Z" && state != "X"
        #else
        return true
        #endif
    }

    static func quoted(_ argument: String) -> String {
        "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
