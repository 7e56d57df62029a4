import ArgumentParser
import Clearance
import ClearanceHTTP
import ClearanceServer
import Foundation
import HTTPTypes
import Logging
import Synchronization

/// `clearance bench`: measures Clearance against baselines taken in the same run. Speed is
/// measured here, never asserted in unit tests. Build with `-c release` for meaningful numbers.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Clearance against baselines measured in the same run (use `swift run -c release clearance bench`)."
    )

    @Option(help: "Iterations of the credential-application loop.") var iterations = 1_000_000
    @Option(help: "Concurrent requests in the refresh fan-in.") var requests = 10_000
    @Option(help: "Private channels subscribed in the channel-authorization figure.") var channels = 1_000
    @Option(help: "Which figures: credentials, fan-in, hub, channels (comma-separated; default all).") var only: String?

    func run() async throws {
        #if DEBUG
        print("note: this is a debug build; run `swift run -c release clearance bench` for meaningful numbers.\n")
        #endif
        let parts = Set((only ?? "credentials,fan-in,hub,channels").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        if parts.contains("credentials") { try await CredentialApplicationBench(iterations: iterations).run() }
        if parts.contains("fan-in") { try await RefreshFanInBench(requests: requests).run() }
        if parts.contains("hub") { try await HubBench().run() }
        if parts.contains("channels") { try await ChannelsBench(channels: channels).run() }
    }
}

/// Prints one figure against its baseline.
func printRatio(_ label: String, _ value: Double, unit: String, baseline: Double, target: Double?) {
    let ratio = value / baseline
    let verdict = target.map { ratio <= $0 ? "  (target ≤ \(String(format: "%.1f", $0))×: met)" : "  (target ≤ \(String(format: "%.1f", $0))×: NOT met)" } ?? ""
    print("  " + label.padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: "%10.1f ", value) + unit + String(format: "   %.2f× baseline", ratio) + verdict)
}

/// ns per request to apply a cached credential, against setting the same header by hand.
struct CredentialApplicationBench {
    let iterations: Int

    func run() async throws {
        print("Applying a credential (\(iterations) requests each)")
        let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJiZW5jaCJ9.c2lnbmF0dXJlLW9mLWEtdG9rZW4"
        let template = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/webxp/projects/p/appinbox/fetch")
        let credential = Credential.bearer(token)
        let cache = CachingCredentialSource(StaticCredentialSource(credential), initial: credential)
        let headerValue = "Bearer \(token)"

        var sink = 0
        let baseline = measure(iterations) {
            var request = template
            request.headerFields[.authorization] = headerValue
            sink &+= request.headerFields.count
        }
        let applied = measure(iterations) {
            var request = template
            credential.apply(to: &request)
            sink &+= request.headerFields.count
        }
        let cached = try await measureAsync(iterations) {
            var request = template
            try await cache.credential().apply(to: &request)
            sink &+= request.headerFields.count
        }
        print("  " + "baseline: header set by hand".padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: "%10.1f ns", baseline))
        printRatio("Credential.apply (credential in hand)", applied, unit: "ns", baseline: baseline, target: 2)
        printRatio("CachingCredentialSource.credential() + apply", cached, unit: "ns", baseline: baseline, target: nil)
        if sink == 42 { print("") }  // keeps the loops from being optimized away
    }

    private func measure(_ n: Int, _ body: () -> Void) -> Double {
        for _ in 0..<min(n, 10_000) { body() }  // warm up
        let clock = ContinuousClock()
        let elapsed = clock.measure { for _ in 0..<n { body() } }
        return Double(elapsed.components.seconds) * 1e9 / Double(n) + Double(elapsed.components.attoseconds) / 1e9 / Double(n)
    }

    private func measureAsync(_ n: Int, _ body: () async throws -> Void) async throws -> Double {
        for _ in 0..<min(n, 10_000) { try await body() }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<n { try await body() }
        let elapsed = clock.now - start
        return Double(elapsed.components.seconds) * 1e9 / Double(n) + Double(elapsed.components.attoseconds) / 1e9 / Double(n)
    }
}

/// 10,000 concurrent requests through AuthorizedClient on an expired credential, against the same with a fresh one.
struct RefreshFanInBench {
    let requests: Int

    func run() async throws {
        print("\nRefresh fan-in: \(requests) concurrent requests through AuthorizedClient to a loopback server")
        let quiet = Logger.silent("bench")
        let api = await DemoAPI()
        let server = try await RunningServer.start(api.router(), logger: quiet)
        let httpClient = AsyncHTTPClientTransport.makeClient(connectionsPerHost: 16)
        let transport = AsyncHTTPClientTransport(client: httpClient)
        let url = server.baseURL.appending(path: "/webxp/projects/bench/appinbox/fetch")
        do {
            let mint: @Sendable () async throws -> String? = { [api] in
                try await api.mintCustomerToken(customerIDs: ["registered": "bench"], expiresAt: Date().addingTimeInterval(3600))
            }
            // Warm up connections and the server.
            _ = try await fire(requests: min(requests, 500), url: url, source: CachingCredentialSource(ClosureCredentialSource.bearerToken(mint)), transport: transport)

            let fresh = try await api.mintCustomerToken(customerIDs: ["registered": "bench"], expiresAt: Date().addingTimeInterval(3600))
            let freshSource = CachingCredentialSource(ClosureCredentialSource.bearerToken(mint), initial: .bearer(fresh, expiresAt: Date().addingTimeInterval(3600)))
            let freshTime = try await fire(requests: requests, url: url, source: freshSource, transport: transport)

            let expired = try await api.mintCustomerToken(customerIDs: ["registered": "bench"], expiresAt: Date().addingTimeInterval(-60))
            let expiredSource = CachingCredentialSource(ClosureCredentialSource.bearerToken(mint), initial: .bearer(expired, expiresAt: Date().addingTimeInterval(-60)))
            let expiredTime = try await fire(requests: requests, url: url, source: expiredSource, transport: transport)

            // The expiry unknown to the client: every request meets a 401 first, one refresh, then retries.
            let unknownSource = CachingCredentialSource(ClosureCredentialSource.bearerToken(mint), initial: .bearer(expired))
            let reactiveTime = try await fire(requests: requests, url: url, source: unknownSource, transport: transport)

            print("  " + "baseline: fresh credential".padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: "%10.1f ms   (%d token fetches)", freshTime * 1000, freshSource.fetchCount))
            printRatio("expired credential (known expiry: proactive refresh)", expiredTime * 1000, unit: "ms", baseline: freshTime * 1000, target: 1.5)
            print("    token fetches: \(expiredSource.fetchCount) (target: exactly 1)")
            printRatio("expired credential (unknown expiry: 401 → refresh → retry)", reactiveTime * 1000, unit: "ms", baseline: freshTime * 1000, target: nil)
            print("    token fetches: \(unknownSource.fetchCount) (target: exactly 1; every request is sent twice)")
        } catch {
            try? await httpClient.shutdown()
            await server.stop()
            throw error
        }
        try await httpClient.shutdown()
        await server.stop()
    }

    /// Sends `requests` requests at once; returns the wall time in seconds.
    private func fire(requests: Int, url: URL, source: CachingCredentialSource, transport: AsyncHTTPClientTransport) async throws -> Double {
        let authorizer = try RequestAuthorizer(policy: .always("customer"), sources: ["customer": source])
        let client = AuthorizedClient(authorizer: authorizer, transport: transport)
        let start = ContinuousClock.now
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<requests {
                group.addTask {
                    let (response, _) = try await client.send(.post, url, body: Data("{}".utf8))
                    return response.status == .ok ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = ContinuousClock.now - start
        if failures > 0 { throw ValidationError("\(failures) of \(requests) requests failed") }
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
