import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Logging
import Testing

/// The defect this guards against: `clearance serve` stopped with SIGTERM and started again a
/// few seconds later, and clients (`clearance listen` above all, with private channels) were not
/// back for ten seconds or more. Here a real `clearance serve` is stopped with SIGTERM and
/// started again on the same port after outages from half a second to eight seconds; after every
/// return, `clearance listen` (a process of its own) and a `ChannelClient` in this process, both
/// with the default reconnect policy, must be subscribed again to a public channel and to a
/// private one (authorized again by the hub's auth endpoint) within five seconds.
@Suite("Planned restarts of clearance serve", .timeLimit(.minutes(3)))
struct PlannedRestartTests {
    static let channels = ["public-news", "private-orders"]

    /// Two sequences run side by side (each with its own hub), to keep the wall time down.
    @Test(arguments: [[0.5, 2, 8], [1, 4]])
    func clientsAreSubscribedAgainWithinFiveSecondsOfTheHubsReturn(outages: [Double]) async throws {
        let port = try LoopbackPort.free()
        let configuration = try ServeProcess.writeConfiguration(port: port)
        defer { try? FileManager.default.removeItem(at: configuration) }
        var serve = try await ServeProcess.start(configuration: configuration, port: port)
        try await withCleanup {
            let authURL = serve.httpURL.appending(path: "/pusher/auth")
            let listen = try ClearanceExecutable.start([
                "listen", "--key", TestHub.key, "--host", "127.0.0.1", "--port", "\(port)",
                "--auth-url", authURL.absoluteString, "--header", "Authorization: Bearer \(TestHub.alice.token)",
            ] + Self.channels)
            try await withCleanup {
                let client = ChannelClient(key: TestHub.key, options: ChannelClientOptions(
                    endpoint: .host("127.0.0.1", port: port),
                    authorizer: try ServerChannelAuthorizer(endpoint: authURL, headers: [.authorization: "Bearer \(TestHub.alice.token)"]),
                    logger: Logger.silent("test.restart")))
                try await withCleanup {
                    let subscriptions = SubscriptionLog()
                    await client.connect()
                    var watchers: [Task<Void, Never>] = []
                    for name in Self.channels {
                        let channel = await client.subscribe(name)
                        watchers.append(Task {
                            for await state in channel.states where state.isSubscribed { subscriptions.add(name) }
                        })
                    }
                    defer {
                        for watcher in watchers { watcher.cancel() }
                    }

                    try await eventually("both clients subscribed at first", timeout: .seconds(20)) {
                        Self.channels.allSatisfy { subscriptions.count($0) >= 1 && Self.listenSubscriptions(listen, $0) >= 1 }
                    }
                    for outage in outages {
                        let before = Self.channels.map { (subscriptions.count($0), Self.listenSubscriptions(listen, $0)) }
                        await serve.stop(.terminate(grace: .seconds(15)))
                        #expect(serve.process.status == 0, "clearance serve did not stop cleanly on SIGTERM: \(serve.process.stderr.suffix(1_000))")
                        // sleep: the outage itself (the hub stays down `outage` seconds on purpose), not a wait.
                        try await Task.sleep(for: .seconds(outage))
                        serve = try await serve.startedAgain()
                        let returned = ContinuousClock.now
                        // Whatever it takes, measured: the assertion is on the time, not on a timeout.
                        try await eventually("every channel subscribed again after a \(outage) s outage", timeout: .seconds(30)) {
                            zip(Self.channels, before).allSatisfy { name, counts in
                                subscriptions.count(name) > counts.0 && Self.listenSubscriptions(listen, name) > counts.1
                            }
                        }
                        let back = ContinuousClock.now - returned
                        #expect(back <= TestTiming.scaled(.seconds(5)), "after a \(outage) s outage the clients were back \(back) after the hub")
                    }
                    // And the channels work: an event on the private channel reaches both.
                    let inProcess = await client.channel(named: "private-orders")!.bind(event: "shipped")
                    try await eventually("the event printed by clearance listen and received here", timeout: .seconds(10)) {
                        try? await TestHub.trigger(serve.http, event: "shipped", channels: ["private-orders"], data: #"{"id":1}"#)
                        return listen.stdout.contains("shipped")
                    }
                    _ = try await first(inProcess, timeout: .seconds(5)) { _ in true }
                } cleanup: {
                    await client.disconnect()
                }
            } cleanup: {
                await listen.stop(.interrupt(grace: .seconds(5)))
            }
        } cleanup: {
            await serve.stop()
        }
    }

    /// How many times `clearance listen` reported `channel` subscribed (its standard error).
    private static func listenSubscriptions(_ listen: ChildProcess, _ channel: String) -> Int {
        listen.stderr.split(separator: "\n").count { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return false }
            return object["channel"] as? String == channel && object["state"] as? String == "subscribed"
        }
    }
}

/// Subscriptions confirmed per channel, counted as they come.
private final class SubscriptionLog: Sendable {
    private let counts = Locked<[String: Int]>([:])
    func add(_ channel: String) { counts.withLock { $0[channel, default: 0] += 1 } }
    func count(_ channel: String) -> Int { counts.withLock { $0[channel, default: 0] } }
}
