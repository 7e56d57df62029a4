import Clearance
import ClearanceSigning
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A server the fan-out figures measure, as a child process of this executable, so that its
/// memory is measured apart from the clients': a hub (`clearance serve`, alone or as a node of a
/// cluster) or the minimal broadcaster (`clearance bench-broadcaster`).
final class ServerProcess: Sendable {
    static let appID = "1"
    static let key = "bench-key"
    static let secret = "bench-secret-0123456789"

    let port: Int
    private let process: Process
    private let directory: URL
    private let output: URL
    private let stopped = Locked(false)

    private init(process: Process, port: Int, directory: URL, output: URL) {
        self.process = process
        self.port = port
        self.directory = directory
        self.output = output
    }

    /// `clearance serve` on a free port; with `backplane`, a node of the cluster on that database
    /// whose nodes share `clusterKey`. In production mode (no `--development`): the bench signs its
    /// channels itself and measures the hub as it runs in production.
    /// With `history`, the app keeps every channel's last 300 events for 120 s (connection recovery).
    static func hub(backplane: (url: String, clusterKey: String)? = nil, history: Bool = false) throws -> ServerProcess {
        let directory = try makeDirectory()
        let configuration = directory.appendingPathComponent("hub.json")
        let historyMember = history ? #","history":{"size":300,"ttl":120}"# : ""
        // Room above the largest figure (10,000 connections): the bench measures fan-out, not the limit.
        let json = #"{"host":"127.0.0.1","port":0,"apps":[{"id":"\#(appID)","key":"\#(key)","secret":"\#(secret)"\#(historyMember)}],"limits":{"connections":{"maxConnections":50000}}}"#
        try Data(json.utf8).write(to: configuration)
        let arguments = ["serve", "--config", configuration.path, "--log-level", "error"] + (backplane.map { ["--backplane", $0.url] } ?? [])
        return try start(arguments, in: directory, environment: backplane.map { ["CLEARANCE_CLUSTER_KEY": $0.clusterKey] } ?? [:])
    }

    /// `clearance bench-broadcaster` on a free port.
    static func broadcaster() throws -> ServerProcess {
        try start(["bench-broadcaster"], in: try makeDirectory())
    }

    private static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Starts `<this executable> arguments` and waits for its `ready … http=URL` line.
    private static func start(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) throws -> ServerProcess {
        let output = directory.appendingPathComponent("stdout.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()

        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ready ") }),
               let http = line.split(separator: " ").first(where: { $0.hasPrefix("http=") }),
               let port = URL(string: String(http.dropFirst(5)))?.port {
                return ServerProcess(process: process, port: port, directory: directory, output: output)
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        process.waitUntilExit()
        throw BenchFailure("`\(arguments[0])` did not report ready (is it wired into this executable?)")
    }

    /// Waits until the process printed a line starting with `prefix` (a node's `backplane connected`).
    func waitForLine(startingWith prefix: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            if text.split(separator: "\n").contains(where: { $0.hasPrefix(prefix) }) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchFailure("no '\(prefix)' line within \(timeout)")
    }

    /// The process's resident set size in kilobytes (Linux `/proc`), or `nil` elsewhere.
    func residentKilobytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    /// The number of the process's open file descriptors (Linux `/proc`), or `nil` elsewhere.
    func openFileDescriptors() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd"))?.count
    }

    /// Publishes one event through the signed HTTP API, as a server library would.
    func trigger(channel: String, name: String, data: String) async throws {
        let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [data]), as: UTF8.self)
        let body = #"{"name":"\#(name)","channel":"\#(channel)","data":"# + String(quoted.dropFirst().dropLast()) + "}"
        let path = "/apps/\(Self.appID)/events"
        let url = try signer.signedURL(method: "POST", baseURL: baseURL, path: path, body: Data(body.utf8))
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw BenchFailure("trigger answered \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
    }

    /// A hub's subscription count for `channel` (every node's, in a cluster), from its HTTP API.
    func subscriptionCount(channel: String) async throws -> Int {
        let path = "/apps/\(Self.appID)/channels/\(channel)"
        let url = try signer.signedURL(method: "GET", baseURL: baseURL, path: path, query: ["info": "subscription_count"], body: nil)
        let (data, _) = try await URLSession.shared.data(from: url)
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["subscription_count"] as? Int ?? 0
    }

    private var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Built once (the bench's fixed credentials are valid): every trigger signs with it.
    private static let signer = try! RESTRequestSigner(appID: appID, key: key, secret: secret)
    private var signer: RESTRequestSigner { Self.signer }

    /// SIGTERM (a hub closes its connections with 4200), then SIGKILL after 10 s. Idempotent.
    func stop() {
        let already = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !already else { return }
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        // Reaps the child and releases the run-loop source through which Foundation's Process
        // holds itself until waitUntilExit (otherwise it and its file handles live until exit).
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
