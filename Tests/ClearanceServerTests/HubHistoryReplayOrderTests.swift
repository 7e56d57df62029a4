@testable import ClearanceServer
import Clearance
import Foundation
import Testing

/// Events published while a resume replays reach the resumed subscriber after the replay: none
/// lost, none twice, none out of order (the hub's channel state, in process, many times over).
@Suite("Hub history replay order")
struct HubHistoryReplayOrderTests {
    private final class Recorder: ConnectionSink {
        private let deliveries = Locked<[ConnectionOutbox.Delivery]>([])
        var outbox: ConnectionOutbox { ConnectionOutbox(sink: self) }

        func deliver(_ delivery: ConnectionOutbox.Delivery) { deliveries.withLock { $0.append(delivery) } }
        func close(_ code: HubCloseCode) {}
        func finish() {}

        /// The frames delivered so far, decoded.
        var frames: [[String: Any]] {
            deliveries.withLock { $0 }.map { delivery in
                (try? JSONSerialization.jsonObject(with: Data(delivery.text.utf8))) as? [String: Any] ?? [:]
            }
        }
    }

    @Test func eventsTriggeredDuringAReplayComeAfterItNoneTwiceNoneMissing() async throws {
        let state = HubChannelState(
            webhooks: nil, history: ChannelHistory.Settings(apps: ["app": ChannelHistoryConfiguration(size: 10_000, ttl: 120)]))
        for trial in 0..<1_000 {
            let channel = "orders-\(trial)"
            let first = Recorder()
            await state.addConnection(socketID: "1.\(trial)", appID: "app", outbox: first.outbox)
            _ = await state.subscribe(socketID: "1.\(trial)", appID: "app", channel: channel, member: nil, maxPresenceMembers: 100)
            let seen = 1 + trial % 7
            for index in 1...seen { await state.publish(appID: "app", channel: channel, frame: Self.event(index), excluding: nil) }
            let succeeded = try #require(first.frames.first)
            let stream = try #require(succeeded["stream"] as? String)
            #expect(first.frames.dropFirst().compactMap { $0["serial"] as? Int } == Array(1...seen))
            await state.removeConnection(socketID: "1.\(trial)", appID: "app")

            // Missed while away, then a resume racing more events.
            let missed = trial % 13
            for index in 0..<missed { await state.publish(appID: "app", channel: channel, frame: Self.event(seen + 1 + index), excluding: nil) }
            let resumed = Recorder()
            await state.addConnection(socketID: "2.\(trial)", appID: "app", outbox: resumed.outbox)
            let live = 1 + trial % 5
            async let publishing: Void = {
                for index in 0..<live {
                    await state.publish(appID: "app", channel: channel, frame: Self.event(seen + missed + 1 + index), excluding: nil)
                }
            }()
            _ = await state.subscribe(
                socketID: "2.\(trial)", appID: "app", channel: channel, member: nil, maxPresenceMembers: 100,
                resume: ChannelHistory.Position(stream: stream, serial: seen))
            await publishing

            let frames = resumed.frames
            let answer = try #require(frames.first)
            #expect(answer["event"] as? String == "pusher_internal:subscription_succeeded")
            #expect(answer["recovered"] as? Bool == true)
            let serials = frames.dropFirst().compactMap { $0["serial"] as? Int }
            #expect(serials == Array((seen + 1)...(seen + missed + live)), "trial \(trial)")
            let data = frames.dropFirst().compactMap { $0["data"] as? String }
            #expect(data == serials.map(String.init), "each event is the one its serial names")
            await state.removeConnection(socketID: "2.\(trial)", appID: "app")
        }
    }

    @Test func resumesAreCountedAndTheKeptEventsGauged() async throws {
        let counters = HubCounters()
        let state = HubChannelState(
            webhooks: nil, history: ChannelHistory.Settings(apps: ["app": ChannelHistoryConfiguration(size: 3, ttl: 120)]), counters: counters)
        let recorder = Recorder()
        await state.addConnection(socketID: "1.1", appID: "app", outbox: recorder.outbox)
        _ = await state.subscribe(socketID: "1.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100)
        let stream = try #require(recorder.frames.first?["stream"] as? String)
        for index in 1...5 { await state.publish(appID: "app", channel: "orders", frame: Self.event(index), excluding: nil) }
        #expect(state.historyEvents.withLock { $0 } == 3, "size 3 keeps three")
        await state.unsubscribe(socketID: "1.1", appID: "app", channel: "orders")
        _ = await state.subscribe(
            socketID: "1.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100, resume: .init(stream: stream, serial: 2))
        await state.unsubscribe(socketID: "1.1", appID: "app", channel: "orders")
        _ = await state.subscribe(
            socketID: "1.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100, resume: .init(stream: stream, serial: 1))
        #expect(counters.value(.resumesRecovered) == 1)
        #expect(counters.value(.resumesNotRecovered) == 1)
        // A subscription without a resume is not one.
        await state.unsubscribe(socketID: "1.1", appID: "app", channel: "orders")
        _ = await state.subscribe(socketID: "1.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100)
        #expect(counters.value(.resumesRecovered) + counters.value(.resumesNotRecovered) == 2)

        // As Prometheus reads them.
        let metrics = HubMetrics()
        // The count alone, as the hub registers it: the state holds the counters.
        counters.register(.historyEvents) { [historyEvents = state.historyEvents] in historyEvents.withLock { $0 } }
        metrics.bridge(counters)
        let exposition = metrics.exposition()
        #expect(exposition.contains(#"clearance_resumes_total{result="recovered"} 1"#), "\(exposition)")
        #expect(exposition.contains(#"clearance_resumes_total{result="not_recovered"} 1"#))
        #expect(exposition.contains("clearance_history_events 3"))
    }

    /// A sink that says it holds `unsent` bytes already.
    private final class Backlogged: ConnectionSink {
        let recorder = Recorder()
        let unsent: Int
        init(unsent: Int) { self.unsent = unsent }
        var unsentBytes: Int { unsent }
        func deliver(_ delivery: ConnectionOutbox.Delivery) { recorder.deliver(delivery) }
        func close(_ code: HubCloseCode) {}
        func finish() {}
    }

    @Test func whatTheConnectionHoldsUnsentCountsAgainstTheReplay() async throws {
        let state = HubChannelState(webhooks: nil, history: ChannelHistory.Settings(apps: ["app": ChannelHistoryConfiguration(size: 300, ttl: 120)]))
        let first = Recorder()
        await state.addConnection(socketID: "1.1", appID: "app", outbox: first.outbox)
        _ = await state.subscribe(socketID: "1.1", appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100)
        let stream = try #require(first.frames.first?["stream"] as? String)
        for index in 1...10 { await state.publish(appID: "app", channel: "orders", frame: Self.event(index), excluding: nil) }
        let replayBytes = 10 * (Self.event(10).utf8.count + 40)

        for (unsent, recovered) in [(0, true), (5_000 - replayBytes / 2, false)] {
            let sink = Backlogged(unsent: unsent)
            let socketID = "2.\(unsent)"
            await state.addConnection(socketID: socketID, appID: "app", outbox: ConnectionOutbox(sink: sink))
            _ = await state.subscribe(
                socketID: socketID, appID: "app", channel: "orders", member: nil, maxPresenceMembers: 100,
                resume: .init(stream: stream, serial: 0), maxReplayBytes: 5_000)
            let frames = sink.recorder.frames
            #expect(frames.first?["recovered"] as? Bool == recovered, "with \(unsent) bytes unsent")
            #expect(frames.count == (recovered ? 11 : 1))
        }
    }

    private static func event(_ index: Int) -> String {
        PusherFrame.event(name: "e", channel: "orders", data: "\(index)")
    }
}
