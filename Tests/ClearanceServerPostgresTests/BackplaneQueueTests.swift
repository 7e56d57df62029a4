@testable import ClearanceServerPostgres
import ClearanceServer
import ClearanceTesting
import ClearanceTestSupport
import Testing

@Suite("Backplane queue")
struct BackplaneQueueTests {
    @Test func theSenderTakesEverythingQueuedAtOnceInOrder() async {
        let queue = BackplaneQueue(limit: 10)
        queue.append([.hello, .syncBegin])
        queue.append([.syncEnd])
        #expect(await queue.next() == [.hello, .syncBegin, .syncEnd])
        #expect(queue.isEmpty)
    }

    @Test func aWaitingSenderWakesForTheNextMessages() async throws {
        let queue = BackplaneQueue(limit: 10)
        let waiting = Task { await queue.next() }
        try await eventually("the sender waits") { queue.isWaiting }
        queue.append([.bye])
        #expect(await waiting.value == [.bye])
    }

    @Test func beyondTheLimitMessagesAreDroppedAndCountedAndAReconnectStartsAfresh() async {
        let queue = BackplaneQueue(limit: 3)
        queue.append([.hello, .hello, .hello, .hello, .hello])
        #expect(queue.dropped == 2)
        queue.replace(with: [.syncBegin, .syncEnd])
        #expect(await queue.next() == [.syncBegin, .syncEnd])
    }

    @Test func anOverflowIsLoggedOnceUntilTheSenderCatchesUp() async {
        let capture = LogCapture()
        let queue = BackplaneQueue(limit: 2, logger: capture.logger())
        queue.append([.hello, .hello, .hello])
        queue.append([.hello])
        #expect(capture.all.filter { $0.contains("backplane.queue.full") }.count == 1)
        #expect(await queue.next() == [.hello, .hello])
        queue.append([.hello, .hello, .hello])
        #expect(capture.all.filter { $0.contains("backplane.queue.full") }.count == 2)
        #expect(queue.dropped == 3)
    }

    @Test func oneAppsFloodTakesAtMostItsPartAndTheOthersEventsGoThrough() async {
        let capture = LogCapture()
        let queue = BackplaneQueue(limit: 100, perAppLimit: 25, logger: capture.logger())
        func event(_ appID: String, _ index: Int) -> ClusterMessage {
            .event(appID: appID, channel: "c", frame: "\(index)", excluding: nil)
        }
        queue.append((0..<90).map { event("flooder", $0) })
        queue.append([event("other", 0), .change(.subscriptions(.init(appID: "flooder", name: "c"), count: 1))])
        #expect(queue.dropped(appID: "flooder") == 65)
        #expect(queue.dropped(appID: "other") == 0)
        #expect(capture.all.filter { $0.contains("backplane.queue.appFull") && $0.contains("flooder") }.count == 1)
        let sent = await queue.next()
        #expect(sent.count == 27)
        #expect(sent.contains(event("other", 0)))
        #expect(!queue.takeResync(), "only events were dropped")
        // Once the sender took them, the app has its part again.
        queue.append((0..<25).map { event("flooder", $0) })
        #expect(queue.dropped(appID: "flooder") == 65)
    }

    @Test func anOverflowMakesAResynchronizationDueOnce() async {
        let queue = BackplaneQueue(limit: 2)
        queue.append([.hello])
        #expect(!queue.takeResync())
        queue.append([.hello, .hello, .hello])
        #expect(await queue.next() == [.hello, .hello])
        #expect(queue.takeResync())
        #expect(!queue.takeResync())
    }

    @Test func droppedEventsAloneMakeNoResynchronizationDue() async {
        let queue = BackplaneQueue(limit: 1)
        let event = ClusterMessage.event(appID: "app", channel: "c", frame: "{}", excluding: nil)
        queue.append([event, event, event])
        #expect(queue.dropped == 2)
        #expect(!queue.takeResync(), "a dropped delivery changes no node's state")
        queue.append([.change(.subscriptions(.init(appID: "app", name: "c"), count: 1))])
        #expect(queue.takeResync())
    }

    @Test func theSenderIsDoneOnceTheFarewellIsTaken() async {
        let queue = BackplaneQueue()
        queue.append([.hello])
        #expect(await queue.next() == [.hello])
        #expect(!queue.isDrained, "stopping alone does not end the sending: the farewell is still to come")
        queue.appendLast([.bye])
        #expect(!queue.isDrained)
        #expect(await queue.next() == [.bye])
        #expect(queue.isDrained)
        #expect(await queue.next() == [], "a drained queue answers at once")
    }

    @Test func theWholeStateIsNeverDroppedAndSettlesADueResynchronization() async {
        let queue = BackplaneQueue(limit: 2)
        queue.append([.hello, .hello, .hello])
        queue.appendWholeState([.syncBegin, .syncEnd, .syncBegin, .syncEnd])
        #expect(!queue.takeResync())
        #expect(await queue.next() == [.hello, .hello, .syncBegin, .syncEnd, .syncBegin, .syncEnd])
        queue.append([.hello, .hello, .hello])
        queue.replace(with: [.hello, .syncBegin, .syncEnd])
        #expect(!queue.takeResync())
        #expect(await queue.next() == [.hello, .syncBegin, .syncEnd])
        queue.append([.hello, .hello])
        queue.appendLast([.bye])
        #expect(await queue.next() == [.hello, .hello, .bye])
        #expect(queue.dropped == 2)
    }

    @Test func nothingFollowsTheFarewell() async {
        let queue = BackplaneQueue(limit: 1)
        queue.append([.hello, .hello])
        queue.appendLast([.bye])
        queue.append([.hello])
        queue.appendWholeState([.syncBegin, .syncEnd])
        #expect(!queue.takeResync(), "a node that said bye must not send its state again: the others would take it back")
        #expect(await queue.next() == [.hello, .bye])
        #expect(queue.isEmpty)
        let reconnecting = BackplaneQueue()
        reconnecting.append([.hello])
        reconnecting.appendLast([.bye])
        reconnecting.replace(with: [.hello, .syncBegin, .syncEnd])  // the link came back while stopping
        #expect(await reconnecting.next() == [.hello, .bye])
    }

    @Test func aCancelledSenderStopsWaiting() async throws {
        let queue = BackplaneQueue()
        let waiting = Task { await queue.next() }
        try await eventually("the sender waits") { queue.isWaiting }
        waiting.cancel()
        #expect(await waiting.value.isEmpty)
    }
}
