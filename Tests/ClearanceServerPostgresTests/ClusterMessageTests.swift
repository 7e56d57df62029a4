@testable import ClearanceServerPostgres
import ClearanceServer
import ClearanceSigning
import Foundation
import Testing

@Suite("Backplane messages and payloads")
struct ClusterMessageTests {
    private let room = ChannelTable.Key(appID: "1234", name: "presence-room")

    @Test func everyMessageSurvivesItsLine() {
        // Whole milliseconds: the times travel as milliseconds since 1970.
        let entry = EventCache.Entry(
            frame: #"{"event":"price","channel":"cache-prices","data":"{\"v\":2}"}"#,
            triggeredAt: Date(timeIntervalSince1970: 1_790_000_000.125), expiresAt: Date(timeIntervalSince1970: 1_790_001_800.125))
        let messages: [ClusterMessage] = [
            .event(appID: "1234", channel: "news", frame: #"{"event":"a","data":"line\nbreak \"quoted\""}"#, excluding: "1.2"),
            .event(appID: "1234", channel: "news", frame: "{}", excluding: nil),
            .change(.subscriptions(room, count: 3)),
            .change(.memberJoined(room, PresenceMember(id: "alice", infoJSON: #"{"name":"Alice"}"#))),
            .change(.memberJoined(room, PresenceMember(id: "42", infoJSON: nil))),
            .change(.memberLeft(room, userID: "alice")),
            .hello, .syncBegin, .syncEnd, .bye,
            .terminate(appID: "1234", userID: "alice"),
            .triggered(appID: "1234", channel: "cache-prices", entry: entry, excluding: nil),
            .triggered(appID: "1234", channel: "cache-prices", entry: entry, excluding: "1.2"),
            .cached(appID: "1234", channel: "private-cache-x", entry: entry),
        ]
        for message in messages {
            #expect(!message.line.contains("\n"))
            #expect(ClusterMessage(line: Substring(message.line)) == message)
        }
        #expect(ClusterMessage(line: #"{"k":"from-a-newer-version"}"#) == nil)
        #expect(ClusterMessage(line: "not json") == nil)
    }

    @Test func messagesArePackedUnderTheNotifyLimitInOrder() throws {
        let node = "6f1c0b8e-7d6a-4bde-9d0e-6a2b1f0c9e3a"
        let limit = BackplanePayload.bodyLimit(node: node)
        let seal = BackplaneSeal(key: .test, namespace: "clearance_backplane")
        let messages = (0..<500).map { ClusterMessage.change(.subscriptions(.init(appID: "1234", name: "channel-\($0)"), count: $0)) }
        let bodies = BackplanePayload.pack(messages, limit: limit)
        #expect(bodies.count > 1)
        var unpacked: [ClusterMessage] = []
        for (index, body) in bodies.enumerated() {
            let notification = BackplanePayload.notification(
                node: node, sealed: seal.seal(body, node: node, sequence: UInt64(index + 1), sentAt: .now, carrier: .notification))
            #expect(notification.utf8.count <= BackplanePayload.notifyLimit)
            let (sender, sealed) = try #require(BackplanePayload.split(notification: notification))
            #expect(sender == node)
            let opened = try seal.open(sealed, node: node, carrier: .notification)
            #expect(opened.sequence == UInt64(index + 1))
            guard case let .messages(lines)? = BackplanePayload(body: opened.body) else {
                Issue.record("unreadable body")
                return
            }
            unpacked += lines.compactMap(ClusterMessage.init(line:))
        }
        #expect(unpacked == messages)
    }

    @Test func aMessageOverTheLimitGetsABodyOfItsOwn() {
        let big = ClusterMessage.event(appID: "1234", channel: "news", frame: String(repeating: "x", count: 9_000), excluding: nil)
        let bodies = BackplanePayload.pack([.hello, big, .bye], limit: BackplanePayload.bodyLimit(node: "node-a"))
        #expect(bodies.count == 3)
        #expect(bodies[1].utf8.count > BackplanePayload.bodyLimit(node: "node-a"))
        #expect(BackplanePayload(body: BackplanePayload.pointer(id: 17)) == .stored(id: 17))
        #expect(BackplanePayload.split(notification: "node-a\nline one\nline two") == nil, "an unsealed notification of an earlier version")
    }
}
