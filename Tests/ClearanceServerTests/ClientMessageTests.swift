@testable import ClearanceServer
import Testing

@Suite("ClientMessage")
struct ClientMessageTests {
    @Test func decodesThePusherEvents() throws {
        #expect(try ClientMessage.parse(#"{"event":"pusher:ping","data":{}}"#) == .ping)
        #expect(try ClientMessage.parse(#"{"event":"pusher:ping","data":""}"#) == .ping)
        #expect(try ClientMessage.parse(#"{"event":"pusher:pong"}"#) == .pong)
        #expect(try ClientMessage.parse(#"{"event":"pusher:subscribe","data":{"channel":"private-a","auth":"k:s"}}"#)
            == .subscribe(channel: "private-a", auth: "k:s", channelData: nil, resume: nil))
        // Some clients send data as a string holding JSON.
        #expect(try ClientMessage.parse(#"{"event":"pusher:subscribe","data":"{\"channel\":\"a\",\"channel_data\":\"{}\"}"}"#)
            == .subscribe(channel: "a", auth: nil, channelData: "{}", resume: nil))
        #expect(try ClientMessage.parse(#"{"event":"pusher:unsubscribe","data":{"channel":"a"}}"#) == .unsubscribe(channel: "a"))
        #expect(try ClientMessage.parse(#"{"event":"pusher:signin","data":{"auth":"k:s","user_data":"{\"id\":\"1\"}"}}"#)
            == .signIn(auth: "k:s", userData: #"{"id":"1"}"#))
    }

    @Test func clientEventsKeepTheirDataText() throws {
        #expect(try ClientMessage.parse(#"{"event":"client-typing","channel":"private-a","data":{ "x" : 1.50 }}"#)
            == .clientEvent(name: "client-typing", channel: "private-a", data: #"{ "x" : 1.50 }"#, dataBytes: 14))
        #expect(try ClientMessage.parse(#"{"event":"client-t","channel":"private-a","data":"héllo"}"#)
            == .clientEvent(name: "client-t", channel: "private-a", data: #""héllo""#, dataBytes: 6))
    }

    @Test(arguments: [
        ("not json", HubProtocolError.invalidJSON),
        ("[1]", .notAnObject),
        (#"{"data":{}}"#, .missingEvent),
        (#"{"event":5}"#, .missingEvent),
        (#"{"event":"pusher:subscribe"}"#, .missingField("data")),
        (#"{"event":"pusher:subscribe","data":{}}"#, .missingField("channel")),
        (#"{"event":"pusher:subscribe","data":{"channel":1}}"#, .invalidField("channel")),
        (#"{"event":"pusher:subscribe","data":{"channel":"a","auth":2}}"#, .invalidField("auth")),
        (#"{"event":"pusher:subscribe","data":"nope"}"#, .invalidField("data")),
        (#"{"event":"pusher:subscribe","data":[1]}"#, .invalidField("data")),
        (#"{"event":"pusher:signin","data":{"auth":"k:s"}}"#, .missingField("user_data")),
        (#"{"event":"something"}"#, .unsupportedEvent),
        (#"{"event":"client-x","data":{}}"#, .missingField("channel")),
        (#"{"event":"client-x","channel":["a"],"data":{}}"#, .invalidField("channel")),
    ])
    func refusesBadFrames(_ text: String, _ error: HubProtocolError) {
        #expect(throws: error) { try ClientMessage.parse(text) }
    }
}
