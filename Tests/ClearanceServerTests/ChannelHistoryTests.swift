@testable import ClearanceServer
import Clearance
import Foundation
import Testing

/// The channel history as a value: positions, resumes and its bounds, on instants a test gives.
@Suite("ChannelHistory")
struct ChannelHistoryTests {
    private let start = ContinuousClock.now
    private let orders = ChannelTable.Key(appID: "app", name: "orders")

    private func history(
        size: Int = 300, ttl: Double = 120, channels: [String]? = nil, maxBytes: Int = 1 << 30, perApp: Int? = nil, apps: [String] = ["app"]
    ) -> ChannelHistory {
        var history = ChannelHistory()
        let configuration = ChannelHistoryConfiguration(size: size, ttl: ttl, channels: channels)
        history.update(
            ChannelHistory.Settings(apps: Dictionary(uniqueKeysWithValues: apps.map { ($0, configuration) }), maxBytes: maxBytes, maxBytesPerApp: perApp),
            now: start)
        return history
    }

    private func event(_ index: Int, channel: String = "orders") -> String {
        PusherFrame.event(name: "e", channel: channel, data: "\(index)")
    }

    /// Appends events `range` to `key`, one second apart from `start` + the lower bound.
    @discardableResult
    private func append(_ range: ClosedRange<Int>, to history: inout ChannelHistory, key: ChannelTable.Key? = nil) -> [Int] {
        range.map { index in
            history.append(event(index, channel: (key ?? orders).name), to: key ?? orders, now: start + .seconds(index))!.serial
        }
    }

    /// `value`, or a recorded issue and a thrown error when it is nil (`#require` cannot take a
    /// mutating call).
    private func unwrap<T>(_ value: T?, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        try #require(value, sourceLocation: sourceLocation)
    }

    private func data(_ frames: [EncodedFrame]) -> [String] {
        frames.map { frame in
            let object = try! JSONSerialization.jsonObject(with: Data(frame.text.utf8)) as! [String: Any]
            return object["data"] as! String
        }
    }

    @Test func eventsAreNumberedFromOneInTheirStreamAndCarryTheirPosition() throws {
        var history = history()
        let position = try unwrap(history.subscribe(orders, now: start))
        #expect(position.serial == 0)
        let (frame, serial) = try unwrap(history.append(event(1), to: orders, now: start))
        #expect(serial == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(frame.text.utf8)) as? [String: Any])
        #expect(object["serial"] as? Int == 1)
        #expect(object["stream"] as? String == position.stream)
        #expect(object["event"] as? String == "e")
        #expect(object["data"] as? String == "1")
        #expect(history.append(event(2), to: orders, now: start)?.serial == 2)
        #expect(history.position(orders, now: start) == ChannelHistory.Position(stream: position.stream, serial: 2))
    }

    @Test func channelsOutsideTheConfigurationAndPresenceChannelsKeepNothing() {
        var history = history(channels: ["orders", "private-"])
        #expect(history.append(event(1, channel: "news"), to: .init(appID: "app", name: "news"), now: start) == nil)
        #expect(history.subscribe(.init(appID: "app", name: "presence-orders"), now: start) == nil)
        #expect(history.append(event(1), to: .init(appID: "other", name: "orders"), now: start) == nil)
        #expect(history.append(event(1, channel: "private-x"), to: .init(appID: "app", name: "private-x"), now: start)?.serial == 1)
        #expect(history.eventCount == 1)
    }

    @Test func aResumeGetsExactlyTheMissedEventsInOrder() throws {
        var history = history()
        let position = try unwrap(history.subscribe(orders, now: start))
        append(1...80, to: &history)
        let resumed = history.resume(orders, from: .init(stream: position.stream, serial: 30), maxBytes: .max, now: start + .seconds(80))
        guard case let .recovered(frames, now)? = resumed else { Issue.record("not recovered: \(String(describing: resumed))"); return }
        #expect(data(frames) == (31...80).map(String.init))
        #expect(now == ChannelHistory.Position(stream: position.stream, serial: 80))
        // Nothing missed: recovered, with no event.
        #expect(history.resume(orders, from: now, maxBytes: .max, now: start + .seconds(80)) == .recovered([], now))
    }

    @Test func aResumeThatCannotBeWholeIsNotRecoveredAndSaysWhy() throws {
        var history = history(size: 10, ttl: 60)
        let stream = try unwrap(history.subscribe(orders, now: start)).stream
        append(1...20, to: &history)
        let now = start + .seconds(20)
        func reason(_ position: ChannelHistory.Position, at instant: ContinuousClock.Instant? = nil, maxBytes: Int = .max) -> ChannelHistory.NotRecovered? {
            if case let .notRecovered(current, reason)? = history.resume(orders, from: position, maxBytes: maxBytes, now: instant ?? now) {
                #expect(current == ChannelHistory.Position(stream: stream, serial: 20))
                return reason
            }
            return nil
        }
        #expect(reason(.init(stream: stream, serial: 9)) == .gap, "event 10 went with size 10")
        #expect(reason(.init(stream: stream, serial: 10)) == nil, "events 11-20 are all kept")
        #expect(reason(.init(stream: "another", serial: 15)) == .otherStream)
        #expect(reason(.init(stream: stream, serial: 21)) == .ahead)
        #expect(reason(.init(stream: stream, serial: 15), maxBytes: 100) == .tooLarge)
        // Event 16 was appended at 16 s: with a ttl of 60 s it is gone at 76 s, checked at the resume.
        #expect(reason(.init(stream: stream, serial: 15), at: start + .seconds(75)) == nil)
        #expect(reason(.init(stream: stream, serial: 15), at: start + .seconds(76)) == .gap)
        #expect(reason(.init(stream: stream, serial: 20), at: start + .seconds(1_000)) == nil, "nothing missed recovers")
    }

    @Test func aChannelWhoseHistoryWentWholeStartsAnotherStream() throws {
        var history = history(ttl: 10)
        append(1...3, to: &history)
        let old = try unwrap(history.position(orders, now: start + .seconds(3)))
        history.purge(now: start + .seconds(100))
        #expect(history.eventCount == 0)
        #expect(history.bytes == 0, "the idle stream went too")
        let new = try unwrap(history.subscribe(orders, now: start + .seconds(100)))
        #expect(new.stream != old.stream)
        #expect(new.serial == 0)
        guard case .notRecovered(_, .otherStream)? = history.resume(orders, from: old, maxBytes: .max, now: start + .seconds(100)) else {
            Issue.record("a position in the lost stream recovered")
            return
        }
    }

    @Test func aSubscribedQuietChannelKeepsItsStreamAndAnIdleOneKeepsItForTheTTL() throws {
        var history = history(ttl: 10)
        let position = try unwrap(history.subscribe(orders, now: start))
        history.purge(now: start + .seconds(1_000))
        #expect(history.position(orders, now: start + .seconds(1_000)) == position, "a subscriber here keeps it")
        history.unsubscribe(orders, now: start + .seconds(1_000))
        history.purge(now: start + .seconds(1_009))
        #expect(history.resume(orders, from: position, maxBytes: .max, now: start + .seconds(1_009)) == .recovered([], position))
        history.purge(now: start + .seconds(1_010))
        #expect(history.bytes == 0)
    }

    @Test func theBoundOfBytesDropsTheOldestEventsOfTheAppThatHoldsMost() throws {
        // Each event is its frame plus 64 bytes; each stream 256 bytes plus its name.
        var history = history(maxBytes: 6_000, apps: ["app", "other"])
        let other = ChannelTable.Key(appID: "other", name: "orders")
        append(1...5, to: &history, key: other)
        let stream = try unwrap(history.subscribe(orders, now: start)).stream
        append(1...60, to: &history)
        #expect(history.bytes <= 6_000)
        if case .notRecovered(_, .gap)? = history.resume(orders, from: .init(stream: stream, serial: 0), maxBytes: .max, now: start) {} else {
            Issue.record("the oldest events of the app holding most were kept")
        }
        let otherStream = try unwrap(history.position(other, now: start)).stream
        guard case let .recovered(frames, _)? = history.resume(other, from: .init(stream: otherStream, serial: 0), maxBytes: .max, now: start) else {
            Issue.record("the app holding little lost its events")
            return
        }
        #expect(data(frames) == ["1", "2", "3", "4", "5"])
    }

    @Test func eachAppHoldsAtMostItsPart() throws {
        var history = history(maxBytes: 100_000, perApp: 3_000, apps: ["app", "other"])
        append(1...200, to: &history)
        #expect(history.bytes <= 3_000)
        #expect(history.eventCount > 0)
        let other = ChannelTable.Key(appID: "other", name: "orders")
        append(1...5, to: &history, key: other)
        #expect(history.bytes <= 6_000)
    }

    @Test func churnOverManyChannelsStaysWithinTheBoundAndItsBookkeepingStaysSmall() throws {
        var history = history(size: 2, maxBytes: 1 << 20, perApp: 20_000)
        for round in 0..<20_000 {
            let key = ChannelTable.Key(appID: "app", name: "orders-\(round % 500)")
            _ = history.subscribe(key, now: start)
            _ = history.append(event(round, channel: key.name), to: key, now: start)
            history.unsubscribe(key, now: start)
        }
        #expect(history.bytes <= 20_000)
        #expect(history.bookkeepingRecords <= 2 * (history.eventCount + history.streamCount) + 64)
    }

    @Test func compactingTheBookkeepingKeepsEveryKeptEventEvictable() throws {
        // Size 10: every event past the tenth leaves a record behind, so the order is compacted
        // again and again; the events kept must all stay in it, or the bound of bytes could not
        // drop them.
        var history = history(size: 10, maxBytes: 1 << 30, perApp: 4_000)
        for index in 1...300 {
            append(index...index, to: &history)
            if history.recordedEvents != history.eventCount {
                Issue.record("after event \(index): \(history.recordedEvents) of \(history.eventCount) kept events recorded")
                break
            }
        }
        let before = history.bytes
        #expect(history.eventCount == 10)
        // One large event: room is made by dropping as many of the oldest as it takes.
        let large = PusherFrame.event(name: "e", channel: "orders", data: String(repeating: "x", count: 2_500))
        _ = history.append(large, to: orders, now: start + .seconds(301))
        #expect(history.bytes <= 4_000, "\(history.bytes) bytes kept (\(before) before the large event)")
        #expect(history.eventCount < 10)
    }

    @Test func expiryGoesInTheOrderEventsCameAcrossChannels() throws {
        var history = history(ttl: 10)
        let other = ChannelTable.Key(appID: "app", name: "news")
        append(1...5, to: &history)
        append(6...8, to: &history, key: other)
        history.purge(now: start + .seconds(14))
        // Events at 1-4 s have expired at 14 s; 5-8 s have not.
        #expect(history.eventCount == 4)
        history.purge(now: start + .seconds(18))
        #expect(history.eventCount == 0)
        history.purge(now: start + .seconds(28))
        #expect(history.bytes == 0, "the idle streams went a ttl after their last event")
        #expect(history.streamCount == 0)
    }

    @Test func turningAnAppsHistoryOffDropsItAtOnce() throws {
        var history = history()
        append(1...10, to: &history)
        history.update(ChannelHistory.Settings(apps: [:]), now: start)
        #expect(history.eventCount == 0)
        #expect(history.bytes == 0)
        #expect(history.append(event(11), to: orders, now: start) == nil)
    }
}
