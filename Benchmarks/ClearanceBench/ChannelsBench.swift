import AsyncHTTPClient
import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceServer
import Foundation
import HTTPTypes
import Logging

/// Subscribing private channels on one connection (2,000 by default): per-channel authorization
/// against batched authorization, time to all-subscribed and the number of auth HTTP requests.
/// Both run `runs` times, alternately, each on a new connection with new channel names; the
/// figure is the ratio of the medians, with the spread of the per-run ratios.
struct ChannelsBench {
    let channels: Int
    let runs: Int

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
        print("\nSubscribing \(channels) private channels on one connection (auth endpoint on the embedded hub; median of \(runs) runs)")
        let quiet = Logger.silent("bench")
        let user = DevelopmentUser(token: "bench-\(UUID().uuidString)", id: "bench")
        // One connection holds every channel: past the default limit of 1,000 when asked for more.
        let limits = HubLimits { $0.channels.maxChannelsPerConnection = max($0.channels.maxChannelsPerConnection, channels) }
        let configuration = HubConfiguration(
            port: 0, apps: [HubAppConfiguration(id: "100001", key: "bench-key", secret: HubConfiguration.randomSecret())], limits: limits)
        let hub = try await DevelopmentHub(configuration: configuration, users: [user]).start(logger: quiet)
        let httpClient = AsyncHTTPClientHTTPTransport.makeClient(connectionsPerHost: 16)
        var times: [Bool: [Double]] = [false: [], true: []]
        var requests: [Bool: Int] = [:]
        do {
            for run in 0..<runs {
                for batched in [false, true] {
                    BenchStatus.measuring("run \(run + 1) of \(runs): \(channels) channels \(batched ? "batched" : "one request each")")
                    let (time, count) = try await subscribeAll(run: run, batched: batched, hub: hub, user: user, httpClient: httpClient, logger: quiet)
                    times[batched]!.append(time)
                    requests[batched] = count
                }
            }
        } catch {
            await hub.stop()
            try? await httpClient.shutdown()
            throw error
        }
        await hub.stop()
        try await httpClient.shutdown()

        let perChannel = times[false]!, batched = times[true]!
        for (label, series, count) in [("one request per channel", perChannel, requests[false]!), ("batched (pusher-js-auth format)", batched, requests[true]!)] {
            print("  " + label.padding(toLength: 40, withPad: " ", startingAt: 0)
                + String(format: "%8.0f ms median (%.0f–%.0f)  %6d auth requests", Measure.median(series) * 1000, series.min()! * 1000, series.max()! * 1000, count))
        }
        let fewer = Double(requests[false]!) / Double(max(requests[true]!, 1))
        let faster = Measure.median(perChannel) / Measure.median(batched)
        let perRun = zip(perChannel, batched).map { $0 / $1 }
        print(String(format: "  batching: %.1f× fewer requests (target ≥ 10×: %@), %.1f× faster (target ≥ 3×: %@; per run %.1f×–%.1f×)",
                     fewer, fewer >= 10 ? "met" : "NOT met", faster, faster >= 3 ? "met" : "NOT met", perRun.min()!, perRun.max()!))
    }

    /// Subscribes `channels` new private channels on a new connection; returns the time until all
    /// are subscribed and the auth requests it took.
    private func subscribeAll(
        run: Int, batched: Bool, hub: HubServer, user: DevelopmentUser, httpClient: HTTPClient, logger: Logger
    ) async throws -> (Double, Int) {
        let counting = CountingTransport(AsyncHTTPClientHTTPTransport(client: httpClient))
        let server = try ServerChannelAuthorizer(
            endpoint: hub.httpURL.appending(path: "/pusher/auth"),
            credentialSource: StaticCredentialSource(.bearer(user.token)), transport: counting)
        let authorizer: any ChannelAuthorizer = batched ? BatchingChannelAuthorizer(server: server) : server
        let client = ChannelClient(key: "bench-key", options: ChannelClientOptions(
            endpoint: .host("127.0.0.1", port: hub.port), authorizer: authorizer, authorizationTimeout: .seconds(60), logger: logger))
        await client.connect()
        _ = try await client.connected()
        let start = ContinuousClock.now
        var handles: [PusherChannel] = []
        for index in 0..<channels { handles.append(await client.subscribe("private-bench-\(run)-\(batched ? "b" : "s")-\(index)")) }
        for handle in handles { try await handle.subscribed() }
        let elapsed = ContinuousClock.now - start
        await client.disconnect()
        return (Measure.seconds(elapsed), counting.count.withLock { $0 })
    }
}
