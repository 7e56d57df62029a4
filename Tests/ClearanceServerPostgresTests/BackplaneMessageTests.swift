@testable import ClearanceServerPostgres
import ClearanceServer
import ClearanceSigning
import Testing

@Suite("Backplane messages and payloads")
struct BackplaneMessageTests {
    private let room = ChannelTable.Key(appID: "1234", name: "presence-room")

    @Test func everyMessageSurvivesItsLine() {
        let messages: [BackplaneMessage] = [
            .event(appID: "1234", channel: "news", frame: #"{"event":"a","data":"line\nbreak \"quoted\""}"#, excluding: "1.2"),
            .event(appID: "1234", channel: "news", frame: "{}", excluding: nil),
            .change(.subscriptions(room, count: 3)),
            .change(.memberJoined(room, PresenceMember(id: "alice", infoJSON: #"{"name":"Alice"}"#))),
            .change(.memberJoined(room, PresenceMember(id: "42", infoJSON: nil))),
            .change(.memberLeft(room, userID: "alice")),
            .hello, .syncBegin, .syncEnd, .bye,
        ]
        for message in messages {
            #expect(!message.line.contains("\n"))
            #expect(BackplaneMessage(line: Substring(message.line)) == message)
        }
        #expect(BackplaneMessage(line: #"{"k":"from-a-newer-version"}"#) == nil)
        #expect(BackplaneMessage(line: "not json") == nil)
    }

    @Test func messagesArePackedUnderTheNotifyLimitInOrder() {
        let messages = (0..<500).map { BackplaneMessage.change(.subscriptions(.init(appID: "1234", name: "channel-\($0)"), count: $0)) }
        let texts = BackplanePayload.pack(messages, node: "node-a")
        #expect(texts.count > 1)
        var unpacked: [BackplaneMessage] = []
        for text in texts {
            #expect(text.utf8.count <= BackplanePayload.notifyLimit)
            guard case let .messages(node, lines)? = BackplanePayload(text) else {
                Issue.record("unreadable payload")
                return
            }
            #expect(node == "node-a")
            unpacked += lines.compactMap(BackplaneMessage.init(line:))
        }
        #expect(unpacked == messages)
    }

    @Test func aMessageOverTheLimitGetsAPayloadOfItsOwn() {
        let big = BackplaneMessage.event(appID: "1234", channel: "news", frame: String(repeating: "x", count: 9_000), excluding: nil)
        let texts = BackplanePayload.pack([.hello, big, .bye], node: "node-a")
        #expect(texts.count == 3)
        #expect(texts[1].utf8.count > BackplanePayload.notifyLimit)
        #expect(BackplanePayload(BackplanePayload.pointer(node: "node-a", id: 17)) == .stored(node: "node-a", id: 17))
    }
}
