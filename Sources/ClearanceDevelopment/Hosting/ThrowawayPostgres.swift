import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throwaway PostgreSQL cluster, for the cluster tests and the cross-node benchmark: a copy of
/// a data directory `initdb` made once per process (``ThrowawayPostgresTemplate``) in a temporary
/// directory, a server on a free loopback port (trust authentication, user
/// `postgres`, durability off), stopped and started with `pg_ctl` like a real database restart,
/// and removed by ``destroy()``. For development only.
///
/// PostgreSQL refuses to run as root: as root, every command runs as the `postgres` user (with
/// `runuser`). Missing PostgreSQL is an error that says how to install it.
package final class ThrowawayPostgres: Sendable {
    /// A PostgreSQL command that failed, with what it printed.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// The port on 127.0.0.1.
    package let port: Int
    /// The temporary directory: `data/`, the socket directory and the log.
    package let directory: URL
    private let binaries: URL

    /// `postgres://postgres@127.0.0.1:PORT/postgres`.
    package var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    private var data: URL { directory.appendingPathComponent("data") }
    private var log: URL { directory.appendingPathComponent("postgres.log") }

    private init(port: Int, directory: URL, binaries: URL) {
        self.port = port
        self.directory = directory
        self.binaries = binaries
    }

    /// Creates a cluster and starts its server.
    package static func start() async throws -> ThrowawayPostgres {
        let binaries = try findBinaries()
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("clearance-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if isRoot { try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: directory.path) }
        let server = ThrowawayPostgres(port: try LoopbackPort.free(), directory: directory, binaries: binaries)
        do {
            let template = try await ThrowawayPostgresTemplate.shared.dataDirectory(binaries: binaries)
            try await server.command("/bin/cp", ["-a", template.path, server.data.path], asPostgres: false)
            try await server.startDatabase()
        } catch {
            await server.destroy()
            throw error
        }
        return server
    }

    /// Starts the server (again) on the same port and data; returns once it accepts connections.
    package func startDatabase() async throws {
        let options = "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        try await command("pg_ctl", ["-D", data.path, "-l", log.path, "-w", "-t", "60", "-o", options, "start"])
    }

    /// Stops the server (`pg_ctl stop -m fast`: every client connection is closed, as in a
    /// database restart).
    package func stopDatabase() async throws {
        try await command("pg_ctl", ["-D", data.path, "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// Stops the server if it runs and removes the directory.
    package func destroy() async {
        try? await command("pg_ctl", ["-D", data.path, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    /// The server's log (for failure messages).
    package var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// The database as `pg_dump` writes it (plain SQL: schema and rows), as an operator's backup has it.
    package func dump() async throws -> String {
        try await command("pg_dump", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "postgres"])
        return try String(contentsOf: directory.appendingPathComponent("pg_dump.out"), encoding: .utf8)
    }

    /// Runs `sql` with `psql` as the `postgres` role, as an operator edits by hand, and returns
    /// what it printed (unaligned, tuples only: one line per row).
    package func psql(_ sql: String, as role: String = "postgres") async throws -> String {
        try await command("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", role, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql, "postgres"])
        return try String(contentsOf: directory.appendingPathComponent("psql.out"), encoding: .utf8)
    }

    /// Runs a PostgreSQL program (`name` in its directory; or any program, by its path) to its
    /// end, through `bash`, as the `postgres` user unless `asPostgres` is false, its output to a
    /// file in `directory`. Foundation's `Process` learns that a child ended when every copy of a
    /// descriptor it gave the child is closed, and the server `pg_ctl start` leaves running would
    /// keep such a copy: bash closes every descriptor above 2 first.
    func command(_ name: String, _ arguments: [String], asPostgres: Bool = true) async throws {
        try await Self.command(name, arguments, binaries: binaries, directory: directory, asPostgres: asPostgres, log: logText)
    }

    /// ``command(_:_:asPostgres:)`` with its binaries and its directory given.
    static func command(
        _ name: String, _ arguments: [String], binaries: URL, directory: URL, asPostgres: Bool = true, log: @autoclosure () -> String = ""
    ) async throws {
        let program = name.hasPrefix("/") ? name : binaries.appendingPathComponent(name).path
        let output = directory.appendingPathComponent("\(URL(fileURLWithPath: name).lastPathComponent).out")
        let words = (isRoot && asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] : [program]) + arguments
        let script = #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; exec "$@""#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script, "bash"] + words
        process.standardInput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = process.standardOutput
        try process.run()
        let deadline = ContinuousClock.now + .seconds(90)
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw Failure(description: "\(name) did not finish within 90 s: \(log().suffix(2_000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        // Returns at once (the child has ended) and releases the run-loop source through which
        // the Process holds itself: without it every Process stays alive until exit.
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            throw Failure(description: "\(name) failed (\(process.terminationStatus)): \(printed.suffix(1_000)) \(log().suffix(2_000))")
        }
    }

    static var isRoot: Bool { getuid() == 0 }

    /// The directory of `initdb` and `pg_ctl`: `$PATH`, else Debian's `/usr/lib/postgresql/<version>/bin`.
    static func findBinaries() throws -> URL {
        let manager = FileManager.default
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where manager.isExecutableFile(atPath: "\(directory)/initdb") {
            return URL(fileURLWithPath: "\(directory)/initdb").resolvingSymlinksInPath().deletingLastPathComponent()
        }
        let versions = (try? manager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: >) where manager.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/initdb") {
            return URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
        }
        throw Failure(description: "PostgreSQL (initdb, pg_ctl) is not installed: scripts/test installs it (apt-get install postgresql).")
    }
}
