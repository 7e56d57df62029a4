import ClearanceServer
import ClearanceSigning
import Foundation
import Testing

/// Webhook events on the wire, as Pusher sends them and `validate_webhook` reads them.
@Suite("Webhook events")
struct WebhookEventTests {
    @Test(arguments: [
        (WebhookEvent.channelOccupied(channel: "news"), #"{"channel":"news","name":"channel_occupied"}"#),
        (.channelVacated(channel: "news"), #"{"channel":"news","name":"channel_vacated"}"#),
        (.memberAdded(channel: "presence-room", userID: "alice"), #"{"channel":"presence-room","name":"member_added","user_id":"alice"}"#),
        (.memberRemoved(channel: "presence-room", userID: "alice"), #"{"channel":"presence-room","name":"member_removed","user_id":"alice"}"#),
        (.clientEvent(channel: "private-chat", event: "client-typing", data: #"{"a":1}"#, socketID: "1.2", userID: nil),
         #"{"channel":"private-chat","data":"{\"a\":1}","event":"client-typing","name":"client_event","socket_id":"1.2"}"#),
        (.clientEvent(channel: "presence-room", event: "client-wave", data: "hi", socketID: "1.2", userID: "alice"),
         #"{"channel":"presence-room","data":"hi","event":"client-wave","name":"client_event","socket_id":"1.2","user_id":"alice"}"#),
        (.cacheMiss(channel: "cache-quotes"), #"{"channel":"cache-quotes","name":"cache_miss"}"#),
    ])
    func eachEventHasPushersWireFormAndDecodesBack(_ event: WebhookEvent, _ json: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: try encoder.encode(event), as: UTF8.self) == json)
        #expect(try JSONDecoder().decode(WebhookEvent.self, from: Data(json.utf8)) == event)
    }

    @Test func aBodyCarriesTimeMillisecondsAndTheEventsInOrder() throws {
        let payload = WebhookPayload(timeMilliseconds: 1_700_000_000_123, events: [.channelOccupied(channel: "a"), .cacheMiss(channel: "cache-b")])
        let text = String(decoding: payload.encoded(), as: UTF8.self)
        #expect(text == #"{"events":[{"channel":"a","name":"channel_occupied"},{"channel":"cache-b","name":"cache_miss"}],"time_ms":1700000000123}"#)
        #expect(try JSONDecoder().decode(WebhookPayload.self, from: payload.encoded()) == payload)
    }

    @Test func anUnknownEventNameOrAMissingMemberDoesNotDecode() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(WebhookEvent.self, from: Data(#"{"name":"channel_exploded","channel":"a"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(WebhookEvent.self, from: Data(#"{"name":"member_added","channel":"a"}"#.utf8)) }
    }
}
