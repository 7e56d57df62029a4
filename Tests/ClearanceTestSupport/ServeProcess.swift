import ClearanceDevelopment
import ClearanceServer
import Foundation

/// `clearance serve` as users run it: its own process, a configuration file, a fixed port, so
/// that it can be stopped with a real signal (SIGTERM for a planned restart, SIGKILL for a
/// crash) and started again on the same port.
package struct ServeProcess: Sendable {
    /// The running process.
    package let process: ChildProcess
    /// Its port on 127.0.0.1.
    package let port: Int

    /// `http://127.0.0.1:PORT`: the HTTP API and the auth endpoints.
    package var httpURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Requests to its HTTP API and auth endpoints.
    package var http: TestHTTP { TestHTTP(baseURL: httpURL) }

    /// Writes a configuration file for `clearance serve`: the test app, the test users, and
    /// `limits`, on `port` (a new temporary file each time).
    package static func writeConfiguration(port: Int, limits: HubLimits = HubLimits()) throws -> URL {
        var configuration = TestHub.configuration(port: port, limits: limits)
        configuration.host = "127.0.0.1"
        let hub = try JSONSerialization.jsonObject(with: JSONEncoder().encode(configuration)) as? [String: Any] ?? [:]
        let users = try JSONSerialization.jsonObject(with: JSONEncoder().encode(TestHub.users))
        var object = hub
        object["users"] = users
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-serve-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        return url
    }

    /// Starts `clearance serve --config FILE` (plus `arguments`) and returns once it printed its
    /// `ready` line (it listens from then on).
    package static func start(
        configuration: URL, port: Int, arguments: [String] = [], environment: [String: String] = [:], timeout: Duration = .seconds(30)
    ) async throws -> ServeProcess {
        let process = try ClearanceExecutable.start(["serve", "--config", configuration.path, "--log-level", "warning"] + arguments, environment: environment)
        guard await process.line(timeout: timeout, where: { $0.hasPrefix("ready ") }) != nil else {
            await process.stop(.kill)
            throw ChildProcess.Failure("clearance serve did not print its ready line within \(timeout); stderr: \(process.stderr.suffix(2_000))")
        }
        return ServeProcess(process: process, port: port)
    }

    /// Stops it with `how` and waits for its end.
    package func stop(_ how: ChildProcess.Stop = .terminate(grace: .seconds(15))) async {
        await process.stop(how)
    }
}
