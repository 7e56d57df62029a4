import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `ChannelClient` against a hub that keeps its channels' history: the connection cut while the
/// hub stays up (a proxy, as a phone's network change does) and the events triggered meanwhile
/// reach the app once and in order, with a recovered signal; a hub restarted with its history in
/// memory gives a not-recovered signal, never silence.
@Suite("ChannelClient connection recovery", .timeLimit(.minutes(2)))
struct ChannelRecoveryTests {
    /// The app's events on a channel, in order, and its recovery signals.
    final class Recorder: Sendable {
        let events = Locked<[ChannelEvent]>([])

        func start(_ channel: PusherChannel) -> Task<Void, Never> {
            let stream = channel.events
            return Task { for await event in stream { self.events.withLock { $0.append(event) } } }
        }

        /// The data of the app's own events (named `e`).
        var data: [String] { events.withLock { $0 }.filter { $0.name == "e" }.compactMap(\.data) }
        var recoveries: [ChannelRecovery] { events.withLock { $0 }.compactMap(ChannelRecovery.init) }
    }

    /// Runs `body` with `tcp_cut_proxy.py` in front of `hub` (a line "cut" on its input cuts every
    /// connection through it) and the proxy's port.
    private static func withProxy(to hub: HubServer, _ body: (ChildProcess, Int) async throws -> Void) async throws {
        let proxy = try PythonPeer.start("tcp_cut_proxy.py", [String(hub.port)])
        try await withCleanup {
            let line = try #require(await proxy.line(timeout: .seconds(30)) { $0.contains("port") }, "no proxy: \(proxy.stderr)")
            let port = try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Int])?["port"])
            try await body(proxy, port)
        } cleanup: {
            await proxy.stop(.kill)
        }
    }

    private static func configuration() -> HubConfiguration {
        TestHub.configuration { $0.history = ChannelHistoryConfiguration(size: 300, ttl: 120) }
    }

    @Test func eventsTriggeredWhileTheConnectionIsCutArriveOnceInOrderWithARecoveredSignal() async throws {
        try await TestHub.with(Self.configuration()) { hub in
            try await Self.withProxy(to: hub) { proxy, port in
                let client = ChannelClient(key: TestHub.key, options: TestHub.options(port, authorizer: try TestHub.serverAuthorizer(hub, token: TestHub.alice.token)))
                try await withCleanup {
                    await client.connect()
                    let recorders = (Recorder(), Recorder())
                    let public_ = await client.subscribe("orders"), private_ = await client.subscribe("private-orders")
                    let readers = [recorders.0.start(public_), recorders.1.start(private_)]
                    defer { for reader in readers { reader.cancel() } }
                    try await public_.subscribed()
                    try await private_.subscribed()
                    #expect(public_.recovery == nil, "nothing to recover at first")

                    for index in 1...3 { try await TestHub.trigger(hub, event: "e", channels: ["orders", "private-orders"], data: "\(index)") }
                    try await eventually("the first events") { recorders.0.data.count == 3 && recorders.1.data.count == 3 }

                    // The network changes: what is triggered now is lost on the old socket.
                    proxy.write(Data("cut\n".utf8))
                    for index in 4...20 { try await TestHub.trigger(hub, event: "e", channels: ["orders", "private-orders"], data: "\(index)") }
                    try await eventually("recovered on both channels", timeout: .seconds(30)) {
                        recorders.0.recoveries == [.recovered] && recorders.1.recoveries == [.recovered]
                    }
                    try await TestHub.trigger(hub, event: "e", channels: ["orders", "private-orders"], data: "21")
                    try await eventually("the live event after the replay") { recorders.0.data.last == "21" && recorders.1.data.last == "21" }
                    for recorder in [recorders.0, recorders.1] {
                        #expect(recorder.data == (1...21).map(String.init), "every event once, in order")
                    }
                    #expect(public_.recovery == .recovered)
                    #expect(private_.recovery == .recovered)
                    let names = recorders.0.events.withLock { $0 }.map(\.name)
                    let recovery = try #require(names.firstIndex(of: ChannelEvent.recovery))
                    #expect(names[recovery - 1] == "pusher:subscription_succeeded", "the signal follows the new subscription")
                } cleanup: {
                    await client.disconnect()
                }
            }
        }
    }

    @Test func clearanceListenSaysRecoveredAfterAReconnectAndPrintsTheMissedEventsOnce() async throws {
        try await TestHub.with(Self.configuration()) { hub in
            try await Self.withProxy(to: hub) { proxy, port in
                let listen = try ClearanceExecutable.start(["listen", "--key", TestHub.key, "--host", "127.0.0.1", "--port", "\(port)", "orders"])
                try await withCleanup {
                    func printed() -> [String] {
                        listen.stdout.split(separator: "\n").compactMap { line in
                            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                            return object?["event"] as? String == "e" ? "\(object?["data"] ?? "")" : nil
                        }
                    }
                    try await eventually("listen subscribed", timeout: .seconds(30)) { listen.stdout.contains("pusher:subscription_succeeded") }
                    try await TestHub.trigger(hub, event: "e", channels: ["orders"], data: "1")
                    try await eventually("the first event printed") { printed() == ["1"] }
                    proxy.write(Data("cut\n".utf8))
                    for index in 2...6 { try await TestHub.trigger(hub, event: "e", channels: ["orders"], data: "\(index)") }
                    try await eventually("recovered, said on standard error", timeout: .seconds(30)) { listen.stderr.contains("recovered orders\n") }
                    try await eventually("every event printed") { printed().count >= 6 }
                    #expect(printed() == (1...6).map(String.init))
                    #expect(!listen.stderr.contains("not recovered"))
                } cleanup: {
                    await listen.stop(.interrupt(grace: .seconds(5)))
                }
            }
        }
    }

    /// Connects `client`, subscribes it to `name` and records the channel's events from before
    /// the subscription succeeds: the recorder, the channel, and the task that reads for it.
    private static func recording(_ client: ChannelClient, _ name: String) async throws -> (Recorder, PusherChannel, Task<Void, Never>) {
        await client.connect()
        let recorder = Recorder()
        let channel = await client.subscribe(name)
        let reader = recorder.start(channel)
        try await channel.subscribed()
        return (recorder, channel, reader)
    }

    @Test func aCacheChannelsKeptEventReachesANewSubscriberThoughItsSerialIsThePosition() async throws {
        try await TestHub.with(Self.configuration()) { hub in
            try await TestHub.trigger(hub, event: "e", channels: ["cache-prices"], data: "1")
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port))
            try await withCleanup {
                let (recorder, _, reader) = try await Self.recording(client, "cache-prices")
                defer { reader.cancel() }
                // Its serial is the channel's position at the subscription: the app gets it all the same.
                try await eventually("the kept event") { recorder.data == ["1"] }
                try await TestHub.trigger(hub, event: "e", channels: ["cache-prices"], data: "2")
                try await eventually("the next event") { recorder.data == ["1", "2"] }
            } cleanup: {
                await client.disconnect()
            }
        }
    }

    /// A ChannelClient on `port` gets an event, `restart` takes the hub's history away, and the
    /// client must say so (never silence), then get the new stream's events. `http` reaches the
    /// hub of the moment.
    private static func expectNotRecovered(
        port: Int, http: @Sendable () -> TestHTTP, restart: () async throws -> Void
    ) async throws {
        let client = ChannelClient(key: TestHub.key, options: TestHub.options(port))
        try await withCleanup {
            let (recorder, channel, reader) = try await Self.recording(client, "orders")
            defer { reader.cancel() }
            try await TestHub.trigger(http(), event: "e", channels: ["orders"], data: "1")
            try await eventually("the first event") { recorder.data == ["1"] }

            try await restart()
            try await eventually("a signal after the restart", timeout: .seconds(30)) { !recorder.recoveries.isEmpty }
            #expect(recorder.recoveries == [.notRecovered(.historyLost)])
            #expect(channel.recovery == .notRecovered(.historyLost))
            // The new stream numbers from 1 again, and the app gets its events.
            try await TestHub.trigger(http(), event: "e", channels: ["orders"], data: "2")
            try await eventually("an event of the new stream") { recorder.data == ["1", "2"] }
        } cleanup: {
            await client.disconnect()
        }
    }

    @Test func aHubRestartedWithItsHistoryInMemoryGivesANotRecoveredSignal() async throws {
        try await TestHub.withBox(Self.configuration()) { box in
            try await Self.expectNotRecovered(port: box.hub.port, http: { TestHTTP(box.hub) }, restart: { try await box.restart() })
        }
    }

    @Test func aSingleClearanceServeKilledAndStartedAgainGivesANotRecoveredSignalNeverSilence() async throws {
        let port = try LoopbackPort.free()
        let configuration = try ServeProcess.writeConfiguration(port: port) { $0.history = ChannelHistoryConfiguration(size: 300, ttl: 120) }
        defer { try? FileManager.default.removeItem(at: configuration) }
        let serve = Locked(try await ServeProcess.start(configuration: configuration, port: port))
        try await withCleanup {
            // A crash: the history was in the killed process's memory.
            try await Self.expectNotRecovered(port: port, http: { serve.withLock { $0.http } }) {
                let killed = serve.withLock { $0 }
                await killed.stop(.kill)
                let again = try await killed.startedAgain()
                serve.withLock { $0 = again }
            }
        } cleanup: {
            await serve.withLock { $0 }.stop()
        }
    }
}
