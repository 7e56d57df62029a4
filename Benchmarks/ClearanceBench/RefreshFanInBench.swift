import Clearance
import ClearanceDevelopment
import ClearanceHTTP
import Foundation
import HTTPTypes
import Logging

/// 10,000 concurrent requests through AuthorizedClient on an expired credential, against the same with a fresh one.
struct RefreshFanInBench {
    let requests: Int

    func run() async throws {
        print("\nRefresh fan-in: \(requests) concurrent requests through AuthorizedClient to a loopback server")
        let quiet = Logger.silent("bench")
        let api = await DemoAPI()
        let server = try await RunningServer.start(api.router(), logger: quiet)
        let httpClient = AsyncHTTPClientHTTPTransport.makeClient(connectionsPerHost: 16)
        let transport = AsyncHTTPClientHTTPTransport(client: httpClient)
        let url = server.baseURL.appending(path: "/webxp/projects/bench/appinbox/fetch")
        do {
            let mint: @Sendable () async throws -> String? = { [api] in
                try await api.mintCustomerToken(customerIDs: ["registered": "bench"], expiresAt: Date().addingTimeInterval(3600))
            }
            // Warm up connections and the server.
            BenchStatus.measuring("warm-up (500 requests)")
            _ = try await fire(requests: min(requests, 500), url: url, source: CachingCredentialSource(ClosureCredentialSource.bearerToken(mint)), transport: transport)

            let fresh = try await api.mintCustomerToken(customerIDs: ["registered": "bench"], expiresAt: Date().addingTimeInterval(3600))
            let freshSource = CachingCredentialSource(ClosureCredentialSource.bearerToken(mint), initial: .bearer(fresh, expiresAt: Date().addingTimeInterval(3600)))
            BenchStatus.measuring("baseline: \(requests) requests on a fresh credential")
            let freshTime = try await fire(requests: requests, url: url, source: freshSource, transport: transport)

            let expired = try await api.mintCustomerToken(customerIDs: ["registered": "bench"], expiresAt: Date().addingTimeInterval(-60))
            let expiredSource = CachingCredentialSource(ClosureCredentialSource.bearerToken(mint), initial: .bearer(expired, expiresAt: Date().addingTimeInterval(-60)))
            BenchStatus.measuring("\(requests) requests on an expired credential (known expiry)")
            let expiredTime = try await fire(requests: requests, url: url, source: expiredSource, transport: transport)

            // The expiry unknown to the client: every request meets a 401 first, one refresh, then retries.
            let unknownSource = CachingCredentialSource(ClosureCredentialSource.bearerToken(mint), initial: .bearer(expired))
            BenchStatus.measuring("\(requests) requests on an expired credential (unknown expiry: 401 first)")
            let reactiveTime = try await fire(requests: requests, url: url, source: unknownSource, transport: transport)

            print("  " + "baseline: fresh credential".padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: "%10.1f ms   (%d token fetches)", freshTime * 1000, freshSource.fetchCount))
            Measure.printRatio("expired credential (known expiry: proactive refresh)", expiredTime * 1000, unit: "ms", baseline: freshTime * 1000, target: 1.5)
            print("    token fetches: \(expiredSource.fetchCount) (target: exactly 1)")
            Measure.printRatio("expired credential (unknown expiry: 401 → refresh → retry)", reactiveTime * 1000, unit: "ms", baseline: freshTime * 1000, target: nil)
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
    private func fire(requests: Int, url: URL, source: CachingCredentialSource, transport: AsyncHTTPClientHTTPTransport) async throws -> Double {
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
        if failures > 0 { throw BenchFailure("\(failures) of \(requests) requests failed") }
        return Measure.seconds(elapsed)
    }
}
