import AsyncHTTPClient
import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceServer
import Foundation
import HTTPTypes
import Logging

/// Subscribing 1,000 private channels on one connection: per-channel authorization against
/// batched authorization, time to all-subscribed and the number of auth HTTP requests.
struct ChannelsBench {
    let channels: Int

    /// Counts the requests that go through it.
    final class CountingTransport: HTTPTransport {
        let base: any HTTPTransport
        let count = Locked(0)
        init(_ base: any HTTPTransport) { self.base = base }
        func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
            count.withLock { $0 += 1 }
            return try await base.send(request, body: body)
        }
    }

    func run() async throws {
        print("\nSubscribing \(channels) private channels on one connection (auth endpoint on the embedded hub)")
        let quiet = Logger.silent("bench")
        let user = DevelopmentUser(token: "bench-\(UUID().uuidString)", id: "bench")
        let configuration = HubConfiguration(port: 0, apps: [HubAppConfiguration(id: "100001", key: "bench-key", secret: HubConfiguration.randomSecret())])
        let hub = try await DevelopmentHub(configuration: configuration, users: [user]).start(logger: quiet)
        let httpClient = AsyncHTTPClientHTTPTransport.makeClient(connectionsPerHost: 16)
        var results: [(String, Double, Int)] = []
        for batched in [false, true] {
            let counting = CountingTransport(AsyncHTTPClientHTTPTransport(client: httpClient))
            let server = try ServerChannelAuthorizer(
                endpoint: hub.httpURL.appending(path: "/pusher/auth"),
                credentialSource: StaticCredentialSource(.bearer(user.token)), transport: counting)
            let authorizer: any ChannelAuthorizer = batched ? BatchingChannelAuthorizer(server: server) : server
            let client = ChannelClient(key: "bench-key", options: ChannelClientOptions(
                endpoint: .host("127.0.0.1", port: hub.port), authorizer: authorizer, authorizationTimeout: .seconds(60), logger: quiet))
            await client.connect()
            _ = try await client.connected()
            let start = ContinuousClock.now
            var handles: [PusherChannel] = []
            for index in 0..<channels { handles.append(await client.subscribe("private-bench-\(batched ? "b" : "s")-\(index)")) }
            for handle in handles { try await handle.subscribed() }
            let elapsed = ContinuousClock.now - start
            results.append((batched ? "batched (pusher-js-auth format)" : "one request per channel",
                            Measure.seconds(elapsed), counting.count.withLock { $0 }))
            await client.disconnect()
        }
        await hub.stop()
        try await httpClient.shutdown()
        let (_, baseTime, baseRequests) = results[0]
        for (label, time, requests) in results {
            print("  " + label.padding(toLength: 40, withPad: " ", startingAt: 0)
                + String(format: "%8.0f ms  %6d auth requests", time * 1000, requests))
        }
        let (_, batchTime, batchRequests) = results[1]
        let fewer = Double(baseRequests) / Double(max(batchRequests, 1)), faster = baseTime / batchTime
        print(String(format: "  batching: %.1f× fewer requests (target ≥ 10×: %@), %.1f× faster (target ≥ 3×: %@)",
                     fewer, fewer >= 10 ? "met" : "NOT met", faster, faster >= 3 ? "met" : "NOT met"))
    }
}
