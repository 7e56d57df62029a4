import ClearanceSigning
import Crypto
import Foundation
import Logging
import WSClient
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `clearance bench` figures for issue 3, each against baselines measured in the same run:
///
/// - channel-auth signatures per second (the full `key:hexsignature` string) against swift-crypto's
///   one-shot `HMAC<SHA256>.authenticationCode` (same strings, same hex output) and the physical
///   limit of two SHA-256 block compressions (two `SHA256.hash` calls on 64-byte inputs), and
///   the official Python library when `.venv/bin/python` (or `$CLEARANCE_PYTHON`) is there;
/// - the same for verification on the hub's subscribe path (`verifyChannelAuth`);
/// - hub fan-out: one HTTP API event to 1,000 and 10,000 subscribed loopback WebSocket
///   connections, p50/p99 delivery latency (trigger call to frame read), and the hub's resident
///   memory per connection (the hub runs as a separate `clearance serve` process, so the
///   clients' memory is not counted).
struct HubBench {
    /// Signatures (and verifications) timed per figure.
    var signatures = 200_000
    /// Connection counts for the fan-out.
    var fanOutSizes = [1_000, 10_000]
    /// Events sent per fan-out size.
    var events = 5

    func run() async throws {
        print("Channel authorization (signing module, issue 3)")
        let inputs = SigningInputs(count: 1_024)
        let python = pythonMicroseconds(inputs)
        signing(inputs, python: python)
        verification(inputs)
        print("\nHub fan-out (one HTTP API event to N loopback WebSocket connections)")
        for size in fanOutSizes {
            do {
                try await fanOut(connections: size)
            } catch {
                print("  N=\(size): not measured: \(error)")
            }
        }
    }

    // MARK: - Signing and verification

    private struct SigningInputs {
        let key = "bench-app-key"
        let secret = "bench-app-secret-0123456789abcdef"
        let socketIDs: [String]
        let channels: [String]
        /// `socket_id:channel_name`, what the baseline HMAC is given (a head start it keeps).
        let messages: [Data]
        let blocks: [[UInt8]]

        init(count: Int) {
            var generator = SystemRandomNumberGenerator()
            socketIDs = (0..<count).map { _ in "\(UInt32.random(in: 1...UInt32.max, using: &generator)).\(UInt32.random(in: 1...UInt32.max, using: &generator))" }
            channels = (0..<count).map { "private-orders-\($0)-\(UInt16.random(in: 0...UInt16.max, using: &generator))" }
            messages = zip(socketIDs, channels).map { Data("\($0):\($1)".utf8) }
            blocks = (0..<count).map { _ in (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        }
    }

    private func signing(_ inputs: SigningInputs, python: Double?) {
        let signer = try! ChannelAuthSigner(key: inputs.key, secret: inputs.secret)
        let key = SymmetricKey(data: Data(inputs.secret.utf8))
        let count = inputs.socketIDs.count
        var sink = 0
        let ours = Self.time(signatures) { index in
            let slot = index % count
            sink &+= try! signer.authorizeChannel(socketID: inputs.socketIDs[slot], channelName: inputs.channels[slot]).auth.utf8.count
        }
        let oneShot = Self.time(signatures) { index in
            let code = HMAC<SHA256>.authenticationCode(for: inputs.messages[index % count], using: key)
            sink &+= (inputs.key + ":" + Self.hex(code)).utf8.count
        }
        let limit = twoBlocks(inputs, sink: &sink)
        print("  signing (key:hexsignature)")
        report("Clearance ChannelAuthSigner", ours, oneShot: oneShot, limit: limit, python: python)
        if sink == 42 { print("") }
    }

    private func verification(_ inputs: SigningInputs) {
        let signer = try! ChannelAuthSigner(key: inputs.key, secret: inputs.secret)
        let key = SymmetricKey(data: Data(inputs.secret.utf8))
        let count = inputs.socketIDs.count
        let auths = (0..<count).map { try! signer.authorizeChannel(socketID: inputs.socketIDs[$0], channelName: inputs.channels[$0]).auth }
        var sink = 0
        let ours = Self.time(signatures) { index in
            let slot = index % count
            if signer.verifyChannelAuth(auth: auths[slot], socketID: inputs.socketIDs[slot], channelName: inputs.channels[slot]) { sink &+= 1 }
        }
        let oneShot = Self.time(signatures) { index in
            let slot = index % count
            let code = HMAC<SHA256>.authenticationCode(for: inputs.messages[slot], using: key)
            if ConstantTimeComparison.equals(auths[slot], inputs.key + ":" + Self.hex(code)) { sink &+= 1 }
        }
        let limit = twoBlocks(inputs, sink: &sink)
        print("  verification on the subscribe path")
        report("Clearance verifyChannelAuth", ours, oneShot: oneShot, limit: limit, python: nil)
        if sink == 42 { print("") }
    }

    private func twoBlocks(_ inputs: SigningInputs, sink: inout Int) -> Double {
        let count = inputs.blocks.count
        var local = 0
        let seconds = Self.time(signatures) { index in
            let first = SHA256.hash(data: inputs.blocks[index % count])
            let second = SHA256.hash(data: inputs.blocks[(index + 1) % count])
            local &+= Int(first.withUnsafeBytes { $0[0] }) &+ Int(second.withUnsafeBytes { $0[0] })
        }
        sink &+= local
        return seconds
    }

    private func report(_ label: String, _ ours: Double, oneShot: Double, limit: Double, python: Double?) {
        func line(_ name: String, _ microseconds: Double, _ note: String) {
            print("    " + name.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(format: "%7.3f µs  %10.0f /s", microseconds, 1 / microseconds * 1_000_000) + note)
        }
        let oursMicroseconds = ours * 1_000_000
        let oneShotMicroseconds = oneShot * 1_000_000
        let limitMicroseconds = limit * 1_000_000
        line(label, oursMicroseconds, "")
        let speedup = oneShotMicroseconds / oursMicroseconds
        line("one-shot HMAC<SHA256>.authenticationCode", oneShotMicroseconds,
             String(format: "   ours is %.2f× faster (target ≥ 2×: %@)", speedup, speedup >= 2 ? "met" : "NOT met"))
        let overLimit = oursMicroseconds / limitMicroseconds
        line("limit: two SHA256.hash on 64-byte blocks", limitMicroseconds,
             String(format: "   ours is %.2f× the limit (target ≤ 3×: %@)", overLimit, overLimit <= 3 ? "met" : "NOT met"))
        if let python {
            let pythonSpeedup = python / oursMicroseconds
            line("official Python library (authenticate)", python,
                 String(format: "   ours is %.1f× faster (target ≥ 5×: %@)", pythonSpeedup, pythonSpeedup >= 5 ? "met" : "NOT met"))
        }
    }

    /// Seconds per iteration of `body` over `iterations`, after a warm-up of a tenth.
    private static func time(_ iterations: Int, _ body: (Int) -> Void) -> Double {
        for index in 0..<max(1, iterations / 10) { body(index) }
        let start = ContinuousClock.now
        for index in 0..<iterations { body(index) }
        let elapsed = ContinuousClock.now - start
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) / Double(iterations)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Plain table-driven hex, so the baseline is not slowed by a naive encoder.
    private static func hex(_ code: HashedAuthenticationCode<SHA256>) -> String {
        var output = [UInt8](repeating: 0, count: 64)
        code.withUnsafeBytes { bytes in
            for (index, byte) in bytes.enumerated() {
                output[2 * index] = hexDigits[Int(byte >> 4)]
                output[2 * index + 1] = hexDigits[Int(byte & 0x0F)]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The official Python library's µs per `authenticate` on the same strings, or `nil`.
    private func pythonMicroseconds(_ inputs: SigningInputs) -> Double? {
        let python = ProcessInfo.processInfo.environment["CLEARANCE_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.currentDirectoryPath + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            print("  (no Python at \(python): the issue's figure for the official library is about 6.9 µs)")
            return nil
        }
        let pairs = zip(inputs.socketIDs, inputs.channels).map { [$0, $1] }
        guard let pairsJSON = try? JSONSerialization.data(withJSONObject: pairs) else { return nil }
        let script = """
            import json, sys, time, pusher
            pairs = json.loads(sys.stdin.read())
            client = pusher.Pusher(app_id='1', key='\(inputs.key)', secret='\(inputs.secret)')
            n = 100000
            for i in range(n // 10): client.authenticate(pairs[i % len(pairs)][1], pairs[i % len(pairs)][0])
            start = time.perf_counter()
            for i in range(n): client.authenticate(pairs[i % len(pairs)][1], pairs[i % len(pairs)][0])
            print((time.perf_counter() - start) / n * 1e6)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            input.fileHandleForWriting.write(pairsJSON)
            try input.fileHandleForWriting.close()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            return nil
        }
    }

    // MARK: - Fan-out

    /// Per-process sample store; the lock is never held across a suspension.
    private final class Samples: @unchecked Sendable {
        private let lock = NSLock()
        private var latencies: [UInt64] = []
        private var subscribed = 0

        func addLatency(_ nanoseconds: UInt64) {
            lock.lock()
            latencies.append(nanoseconds)
            lock.unlock()
        }

        func addSubscribed() {
            lock.lock()
            subscribed += 1
            lock.unlock()
        }

        var latencyCount: Int {
            lock.lock()
            defer { lock.unlock() }
            return latencies.count
        }

        var subscribedCount: Int {
            lock.lock()
            defer { lock.unlock() }
            return subscribed
        }

        var sortedLatencies: [UInt64] {
            lock.lock()
            defer { lock.unlock() }
            return latencies.sorted()
        }
    }

    private struct BenchFailure: Error, CustomStringConvertible {
        let description: String
    }

    private func fanOut(connections: Int) async throws {
        raiseOpenFileLimit()
        let hub = try HubProcess.start()
        defer { hub.stop() }
        try await Task.sleep(for: .milliseconds(300))
        let rssBefore = hub.residentKilobytes()

        let samples = Samples()
        let logger = Logger.silent("bench.client")
        let url = "ws://127.0.0.1:\(hub.port)/app/\(HubProcess.key)?protocol=7&client=clearance-bench&version=1.0.0"
        let subscribe = #"{"event":"pusher:subscribe","data":{"channel":"bench"}}"#
        let started = ContinuousClock.now

        try await withThrowingTaskGroup(of: Void.self) { group in
            var opened = 0
            while opened < connections {
                let wave = min(250, connections - opened)
                for _ in 0..<wave {
                    group.addTask {
                        _ = try? await WebSocketClient.connect(
                            url: url,
                            configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 16, closeTimeout: .seconds(2)),
                            logger: logger
                        ) { inbound, outbound, _ in
                            try await outbound.write(.text(subscribe))
                            for try await message in inbound.messages(maxSize: 1 << 16) {
                                guard case let .text(text) = message else { continue }
                                if text.contains("subscription_succeeded") {
                                    samples.addSubscribed()
                                } else if let sent = Self.timestamp(in: text) {
                                    samples.addLatency(DispatchTime.now().uptimeNanoseconds &- sent)
                                }
                            }
                        }
                    }
                }
                opened += wave
                // A client that never gets its subscription confirmed is left out of the figures.
                _ = try await Self.wait(upTo: .seconds(30)) { samples.subscribedCount >= opened }
            }
            let ready = samples.subscribedCount
            let setup = ContinuousClock.now - started
            try await Task.sleep(for: .milliseconds(500))
            let rssAfter = hub.residentKilobytes()

            for index in 0..<events {
                let expected = ready * (index + 1)
                try await hub.trigger(channel: "bench", name: "bench-tick", data: #"{"t":\#(DispatchTime.now().uptimeNanoseconds)}"#)
                _ = try await Self.wait(upTo: .seconds(30)) { samples.latencyCount >= expected }
            }
            let latencies = samples.sortedLatencies
            func percentile(_ fraction: Double) -> Double {
                guard !latencies.isEmpty else { return .nan }
                return Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * fraction))]) / 1_000_000
            }
            let perConnection = rssBefore.flatMap { before in rssAfter.map { Double($0 - before) / Double(max(ready, 1)) } }
            print(String(
                format: "  N=%-6d subscribed %d in %.1f s; %d deliveries: p50 %.2f ms, p99 %.2f ms, max %.2f ms; hub RSS %@",
                connections, ready, Double(setup.components.seconds) + Double(setup.components.attoseconds) / 1e18,
                latencies.count, percentile(0.5), percentile(0.99), percentile(1.0),
                perConnection.map { String(format: "%.1f KB per connection", $0) } ?? "unavailable"
            ))
            hub.stop()
            group.cancelAll()
        }
    }

    /// A `clearance serve` child process, so the hub's memory is measured apart from the clients'.
    private final class HubProcess: @unchecked Sendable {
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
            throw BenchFailure(description: "`serve` did not report ready (is ServeCommand wired into this executable?)")
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
                throw BenchFailure(description: "trigger answered \((response as? HTTPURLResponse)?.statusCode ?? 0)")
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

    private static func timestamp(in text: String) -> UInt64? {
        guard let range = text.range(of: #"\"t\":"#) else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        return UInt64(digits)
    }

    /// Polls `condition` until it holds (`true`) or `timeout` passes (`false`).
    private static func wait(upTo timeout: Duration, until condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    private func raiseOpenFileLimit() {
        #if canImport(Glibc)
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        #endif
    }
}
