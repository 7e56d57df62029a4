import ClearanceSigning
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A `clearance serve` child process, so the hub's memory is measured apart from the clients'.
final class HubProcess: @unchecked Sendable {
    static let appID = "1"
    static let key = "bench-key"
    static let secret = "bench-secret-0123456789"

    let port: Int
    private let process: Process
    private let directory: URL
    private let lock = NSLock()
    private var stopped = false

    private init(process: Process, port: Int, directory: URL) {
        self.process = process
        self.port = port
        self.directory = directory
    }

    /// Starts `<this executable> serve` on a free port and waits for its ready line.
    static func start() throws -> HubProcess {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("hub.json")
        let json = #"{"host":"127.0.0.1","port":0,"apps":[{"id":"\#(appID)","key":"\#(key)","secret":"\#(secret)"}]}"#
        try Data(json.utf8).write(to: configuration)
        let output = directory.appendingPathComponent("stdout.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)

        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["serve", "--config", configuration.path, "--log-level", "error"]
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()

        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ready ") }),
               let http = line.split(separator: " ").first(where: { $0.hasPrefix("http=") }),
               let port = URL(string: String(http.dropFirst(5)))?.port {
                return HubProcess(process: process, port: port, directory: directory)
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        process.terminate()
        throw BenchFailure("`serve` did not report ready (is ServeCommand wired into this executable?)")
    }

    /// The hub's resident set size in kilobytes (Linux `/proc`), or `nil` elsewhere.
    func residentKilobytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    /// Publishes one event through the signed HTTP API, as a server library would.
    func trigger(channel: String, name: String, data: String) async throws {
        let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [data]), as: UTF8.self)
        let body = #"{"name":"\#(name)","channel":"\#(channel)","data":"# + String(quoted.dropFirst().dropLast()) + "}"
        let path = "/apps/\(Self.appID)/events"
        let signer = try RESTRequestSigner(appID: Self.appID, key: Self.key, secret: Self.secret)
        let url = try signer.signedURL(method: "POST", baseURL: URL(string: "http://127.0.0.1:\(port)")!, path: path, body: Data(body.utf8))
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw BenchFailure("trigger answered \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
    }

    /// SIGTERM (the hub closes its connections with 4200), then SIGKILL after 10 s. Idempotent.
    func stop() {
        lock.lock()
        let already = stopped
        stopped = true
        lock.unlock()
        guard !already else { return }
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }
}
