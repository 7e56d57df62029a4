import ClearanceDevelopment
import ClearanceServer
import Foundation
import Testing

/// `clearance serve` as users run it: its own process, a configuration file, a fixed port, so
/// that it can be stopped with a real signal (SIGTERM for a planned restart, SIGKILL for a
/// crash) and started again on the same port.
package struct ServeProcess: Sendable {
    /// The running process.
    package let process: ChildProcess
    /// Its port on 127.0.0.1.
    package let port: Int
    /// How it was started (its configuration file, mode, arguments, environment, limits), to
    /// start it again the same way.
    private let launch: Launch

    private struct Launch: Sendable {
        var configuration: URL, development: Bool, arguments: [String], environment: [String: String]
        var descriptorLimit: Int?, timeout: Duration
    }

    /// `http://127.0.0.1:PORT`: the HTTP API and the auth endpoints.
    package var httpURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Requests to its HTTP API and auth endpoints.
    package var http: TestHTTP { TestHTTP(baseURL: httpURL) }

    /// Writes a configuration file for `clearance serve`: the test app (changed by `adjustApp`)
    /// and `extraApps`, the test users, `limits` and `members` (more top-level members, such as
    /// `pugpig`), on `port` (a new file each time, in a folder removed when the test process exits).
    package static func writeConfiguration(
        port: Int, limits: HubLimits = HubLimits(), members: [String: String] = [:], extraApps: [HubAppConfiguration] = [],
        adjustApp: (inout HubAppConfiguration) -> Void = { _ in }
    ) throws -> URL {
        var configuration = TestHub.configuration(port: port, limits: limits, extraApps: extraApps, adjustApp: adjustApp)
        configuration.host = "127.0.0.1"
        let hub = try JSONSerialization.jsonObject(with: JSONEncoder().encode(configuration)) as? [String: Any] ?? [:]
        let users = try JSONSerialization.jsonObject(with: JSONEncoder().encode(TestHub.users))
        var object = hub
        object["users"] = users
        for (name, json) in members {
            object[name] = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        }
        let url = try configurationDirectory.get().appendingPathComponent("\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        return url
    }

    /// Where this test process writes its configuration files: a folder of its own, removed when
    /// the process exits, so that a file a test keeps until its hubs stop (a cluster's nodes, a
    /// hub started again) is never left behind.
    private static let configurationDirectory = Result { try ProcessDirectory.make("clearance-serve") }

    /// Starts `clearance serve --config FILE` (plus `arguments`) and returns once it printed its
    /// `ready` line (it listens from then on). With `development` (the default: most tests sign
    /// channels through its `/pusher/auth`), it runs with `--development`; without, as the
    /// production hub (WebSocket endpoint and HTTP API only). With `descriptorLimit`, the process starts with
    /// that soft and hard `RLIMIT_NOFILE` (`ulimit -n` in a shell that then becomes it): the
    /// hub raises its soft limit to the hard one, so both are lowered.
    package static func start(
        configuration: URL, port: Int, development: Bool = true, arguments: [String] = [], environment: [String: String] = [:],
        descriptorLimit: Int? = nil, timeout: Duration = .seconds(30)
    ) async throws -> ServeProcess {
        try await start(Launch(
            configuration: configuration, development: development, arguments: arguments, environment: environment,
            descriptorLimit: descriptorLimit, timeout: timeout), port: port)
    }

    private static func start(_ launch: Launch, port: Int) async throws -> ServeProcess {
        let words = ["serve", "--config", launch.configuration.path, "--log-level", "warning"] + (launch.development ? ["--development"] : []) + launch.arguments
        let (environment, timeout) = (launch.environment, launch.timeout)
        let process: ChildProcess
        if let descriptorLimit = launch.descriptorLimit {
            let script = #"ulimit -n \#(descriptorLimit) && exec "$0" "$@""#
            process = try ChildProcess.start(URL(fileURLWithPath: "/bin/sh"), ["-c", script, try ClearanceExecutable.url().path] + words, environment: environment)
        } else {
            process = try ClearanceExecutable.start(words, environment: environment)
        }
        guard await process.line(timeout: timeout, where: { $0.hasPrefix("ready ") }) != nil else {
            await process.stop(.kill)
            throw ChildProcess.Failure("clearance serve did not print its ready line within \(timeout); stderr: \(process.stderr.suffix(2_000))")
        }
        return ServeProcess(process: process, port: port, launch: launch)
    }

    /// A new `clearance serve` started as this one was (the same configuration file, which must
    /// still exist, on the same port), once this one has stopped: a restart as users do it is
    /// ``stop(_:)`` (SIGTERM), then this.
    package func startedAgain() async throws -> ServeProcess {
        try await Self.start(launch, port: port)
    }

    /// Runs `body` with a `clearance serve` of the test app (changed by `adjustApp`), `extraApps` and users under `limits` (on a free
    /// port; `development` as in ``start(configuration:port:development:arguments:environment:descriptorLimit:timeout:)``),
    /// killed afterwards, also when `body` throws.
    package static func with(
        limits: HubLimits, development: Bool = true, arguments: [String] = [], environment: [String: String] = [:], descriptorLimit: Int? = nil,
        extraApps: [HubAppConfiguration] = [], adjustApp: (inout HubAppConfiguration) -> Void = { _ in },
        _ body: (ServeProcess) async throws -> Void
    ) async throws {
        let port = try LoopbackPort.free()
        let configuration = try writeConfiguration(port: port, limits: limits, extraApps: extraApps, adjustApp: adjustApp)
        defer { try? FileManager.default.removeItem(at: configuration) }
        let serve = try await start(
            configuration: configuration, port: port, development: development, arguments: arguments, environment: environment,
            descriptorLimit: descriptorLimit)
        try await serve.killed { try await body(serve) }
    }

    /// Runs `body`, then kills the process (also when `body` throws). When `body` throws, the
    /// last lines the process wrote to its standard error are recorded with the failure: a
    /// hub's warnings (a refused socket, a deadline) are often what explains it.
    package func killed<T>(after body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            await stop(.kill)
            return result
        } catch {
            let reported = process.endedUnasked  // then stop(_:) records its ending and output
            await stop(.kill)
            if !reported {
                Issue.record("clearance serve's last output, for the failure above (\(error)):\n\(process.stderr.suffix(3_000))")
            }
            throw error
        }
    }

    /// The environment for a child whose resident memory a test bounds: under AddressSanitizer
    /// every freed block waits in the allocator's quarantine (256 MB by default) before it is
    /// reused, so resident memory grows with what the hub frees, not with what it keeps. A
    /// quarantine of 8 MB keeps the measure about the hub (under AddressSanitizer the
    /// development-ledger flood's hub grew 290 MB with the default quarantine, and stays within
    /// its 32 MB bound with this one). Empty without AddressSanitizer.
    package static var memoryMeasuringEnvironment: [String: String] {
        guard let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"] else { return [:] }
        return ["ASAN_OPTIONS": options + " quarantine_size_mb=8"]
    }

    /// Its resident memory (`VmRSS` of `/proc/PID/status`), in bytes; nil where there is no `/proc`.
    package var residentBytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1_024
    }

    /// Its open file descriptors (`/proc/PID/fd`); nil where there is no `/proc`.
    package var openDescriptors: Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd"))?.count
    }

    /// Whether it logged the end of the connection `socketID` (`hub.connection.closed`, at
    /// `--log-level info`), which the hub does once that connection left every channel and user
    /// table.
    package func loggedConnectionClosed(socketID: String) -> Bool {
        process.stderr.split(separator: "\n").contains { $0.contains("hub.connection.closed") && $0.contains(socketID) }
    }

    /// Stops it with `how` and waits for its end. A hub that ended before the test stopped it
    /// (a crash, or an exit of its own) is a failure of the test, recorded with its last output:
    /// `clearance serve` never ends unasked.
    package func stop(_ how: ChildProcess.Stop = .terminate(grace: .seconds(15))) async {
        if process.endedUnasked {
            Issue.record("clearance serve \(process.ending) before the test stopped it; its last output:\n\(process.stderr.suffix(3_000))")
        }
        await process.stop(how)
    }
}
