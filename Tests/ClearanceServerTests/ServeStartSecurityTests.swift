import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve` at start and on reload, as operators run it: secrets read once and never
/// printed where logs keep them, a SIGHUP that comes early never kills it, and its metrics port
/// bounded in time like the hub's.
@Suite("clearance serve: secrets, early signals and the metrics port", .timeLimit(.minutes(3)))
struct ServeStartSecurityTests {
    /// Starts `clearance serve` (production) with `arguments`, writes `input` to its standard
    /// input and closes it, and returns once it printed its ready line.
    static func start(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) async throws -> ChildProcess {
        let process = try ClearanceExecutable.start(["serve", "--log-level", "warning"] + arguments, environment: environment)
        if let input { process.write(Data(input.utf8)) }
        process.closeInput()
        guard await process.line(timeout: .seconds(30), where: { $0.hasPrefix("ready ") }) != nil else {
            await process.stop(.kill)
            throw ChildProcess.Failure("clearance serve did not start: \(process.stderr.suffix(2_000))")
        }
        return process
    }

    @Test func aSecretFromStandardInputIsReadOnceAndKeptAcrossReloads() async throws {
        let port = try LoopbackPort.free()
        let file = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits())
        defer { try? FileManager.default.removeItem(at: file) }
        let secret = "secret-from-standard-input-0123456789"
        let process = try await Self.start(["--config", file.path, "--secret", "-"], input: secret + "\n")
        try await withCleanup {
            let http = TestHTTP(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
            let signer = try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: secret)
            let body = #"{"name":"e","channel":"news","data":"x"}"#
            #expect(try await http.signed("POST", signer.eventsPath, body: body, signer: signer).status == 200)
            // Standard input is not read again: the reload keeps the secret.
            let line = try await ServeReloadTests.hangUp(process: process)
            #expect(line.hasPrefix("reloaded "), "\(line)")
            #expect(try await http.signed("POST", signer.eventsPath, body: body, signer: signer).status == 200)
            // The file's own secret differs: said at start and on the reload.
            // stderr is a pipe of its own: the reload's warning may be read after its stdout line.
            try await eventually("two warnings") {
                process.stderr.components(separatedBy: "replaces the secret of the app \(TestHub.appID)").count - 1 == 2
            }
            #expect(!process.stderr.contains(secret) && !process.stdout.contains(secret))
        } cleanup: {
            await process.stop(.kill)
        }
    }

    @Test func aGeneratedSecretNeverReachesStandardOutput() async throws {
        let port = try LoopbackPort.free()
        // Without a file: once to standard error, with a warning.
        let first = try await Self.start(["--port", "\(port)"])
        let shown = first.stderr.split(separator: "\n").first { $0.contains("generated app secret=") }
        await first.stop(.kill)
        let secret = try #require(shown.flatMap { $0.split(separator: "secret=").last?.split(separator: " ").first }.map(String.init))
        #expect(secret.count == 32)
        #expect(!first.stdout.contains(secret), "\(first.stdout)")
        #expect(first.stderr.components(separatedBy: secret).count == 2, "once")

        // With --generated-secret-file: in the file (mode 0600), on neither output.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.secret").path
        let second = try await Self.start(["--port", "\(try LoopbackPort.free())", "--generated-secret-file", path])
        await second.stop(.kill)
        let written = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(written.count == 32)
        #expect(!second.stdout.contains(written) && !second.stderr.contains(written))
        #expect(second.stdout.contains("written to \(path)"))
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test func aSighupWhileTheHubStartsIsIgnored() async throws {
        let port = try LoopbackPort.free()
        let file = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits())
        defer { try? FileManager.default.removeItem(at: file) }
        // From its first line on (printed once the configuration is read), SIGHUPs one after the
        // other until it is ready (a signal already pending is not queued twice, so the hub gets
        // one whenever it can): those that land before the reload service traps them must be
        // ignored. A start so fast that none was sent proves nothing: tried again.
        var sentBeforeReady = 0
        for _ in 0..<5 where sentBeforeReady == 0 {
            let process = try ClearanceExecutable.start(["serve", "--config", file.path, "--log-level", "warning"])
            sentBeforeReady = try await withCleanup { () async throws -> Int in
                let sent = await onOwnThread {
                    var sent = 0
                    let deadline = ContinuousClock.now + .seconds(30)
                    while process.stdout.isEmpty, process.isRunning, ContinuousClock.now < deadline { sched_yield() }
                    while !process.stdout.contains("ready "), process.isRunning, ContinuousClock.now < deadline {
                        kill(process.pid, SIGHUP)
                        sent += 1
                        sched_yield()
                    }
                    return sent
                }
                #expect(process.isRunning, "status \(process.status): \(process.stderr.suffix(2_000))")
                let http = TestHTTP(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
                let status = try await http.signed("POST", TestHub.restSigner.eventsPath, body: #"{"name":"e","channel":"news","data":"x"}"#).status
                #expect(status == 200)
                return sent
            } cleanup: {
                await process.stop(.kill)
            }
        }
        #expect(sentBeforeReady > 0, "no SIGHUP landed while the hub started")
    }

    @Test func theMetricsPortClosesTrickledRequestsLikeTheHubsPort() async throws {
        let metricsPort = try LoopbackPort.free()
        try await ServeProcess.with(limits: TestHub.limits(), development: false, arguments: ["--metrics-port", "\(metricsPort)"]) { serve in
            _ = await serve.process.line(timeout: .seconds(10)) { $0.hasPrefix("metrics ") }
            // More trickled request bodies than the port has slots, a byte every 200 ms: never idle.
            var trickling: [RawSocket] = []
            for _ in 0..<(HubMetricsService.maxConnections + 4) {
                let socket = try RawSocket(host: "127.0.0.1", port: metricsPort)
                try socket.sendAll(Array("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n".utf8))
                trickling.append(socket)
            }
            defer { trickling.forEach { $0.shutdownSocket() } }
            let trickler = ServeDescriptorLimitTests.trickle(trickling, every: .milliseconds(200), for: .seconds(30))
            defer { trickler.cancel() }
            // Each is closed by its deadline, 5 s from its accept (the idle timer never fires: bytes
            // keep coming): the first 16 after 5 s, the 4 the backlog held once a slot was free.
            let limit = Duration.seconds(2 * HubMetricsService.requestTimeout) + .seconds(3)
            let closings = await withTaskGroup(of: Bool.self) { group in
                for socket in trickling { group.addTask { await socket.untilClosed(timeout: limit) != nil } }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(closings == trickling.count, "\(trickling.count - closings) trickled requests still open")
            let metrics = TestHTTP(baseURL: URL(string: "http://127.0.0.1:\(metricsPort)")!)
            #expect(try await metrics.raw("GET", "/ready").status == 200)
        }
    }
}
