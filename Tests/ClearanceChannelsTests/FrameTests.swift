import Clearance
import ClearanceWire
import Foundation
import Testing
@testable import ClearanceChannels

@Suite struct FrameTests {
    @Test func dataHoldingJSONIsDecodedTwice() throws {
        let frame = try IncomingFrame(parsing: #"{"event":"pusher:connection_established","data":"{\"socket_id\":\"123.456\",\"activity_timeout\":30}"}"#)
        let established = try #require(ConnectionEstablished(frame))
        #expect(established.socketID == "123.456")
        #expect(established.activityTimeout == 30)
    }

    @Test func objectDataIsKeptAsJSONText() throws {
        let frame = try IncomingFrame(parsing: #"{"event":"e","channel":"c","data":{"b":1,"a":"x"},"user_id":42}"#)
        #expect(frame.data == #"{"a":"x","b":1}"#)
        #expect(frame.userID == "42")
        #expect(frame.channel == "c")
    }

    @Test func plainStringDataStaysAString() throws {
        let frame = try IncomingFrame(parsing: #"{"event":"e","channel":"c","data":"hello"}"#)
        #expect(frame.data == "hello")
        let event = ChannelEvent(name: "e", channel: "c", data: frame.data)
        #expect(try event.decode(String.self) == "hello")
    }

    @Test func badFramesAreRefused() {
        #expect(throws: FrameError.notJSONObject) { try IncomingFrame(parsing: "[1]") }
        #expect(throws: FrameError.missingEvent) { try IncomingFrame(parsing: #"{"data":1}"#) }
        #expect(ConnectionEstablished(IncomingFrame(event: "pusher:connection_established", data: #"{"socket_id":"abc"}"#)) == nil)
    }

    @Test func subscribeFrameCarriesChannelDataAsAString() throws {
        let text = OutgoingFrame.subscribe(channel: "presence-a", auth: "k:sig", channelData: #"{"user_id":"u\"1"}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["event"] as? String == "pusher:subscribe")
        let data = try #require(object["data"] as? [String: Any])
        #expect(data["channel"] as? String == "presence-a")
        #expect(data["auth"] as? String == "k:sig")
        #expect(data["channel_data"] as? String == #"{"user_id":"u\"1"}"#)
    }

    @Test func clientEventEmbedsItsJSON() throws {
        let text = OutgoingFrame.clientEvent("client-x", channel: "private-a", dataJSON: #"{"n":1}"#)
        #expect(text == #"{"event":"client-x","channel":"private-a","data":{"n":1}}"#)
        #expect(OutgoingFrame.unsubscribe(channel: "a\u{1}\n") == #"{"event":"pusher:unsubscribe","data":{"channel":"a\u0001\n"}}"#)
    }

    @Test func presenceSnapshotIsRead() throws {
        let members = try #require(PresenceMembers(subscriptionData: #"{"presence":{"ids":["a",2],"hash":{"a":{"name":"A"},"2":null},"count":2}}"#, myID: "a"))
        #expect(members.count == 2)
        #expect(members.me?.id == "a")
        #expect(members.members["a"]?.infoJSON == #"{"name":"A"}"#)
        struct Info: Decodable { let name: String }
        #expect(try members.members["a"]?.decodeInfo(Info.self).name == "A")
    }

    @Test func authRequestBodiesPercentEncodeEverythingButUnreserved() {
        #expect(PercentEncoding.encode("private-a;b=c,d@e") == "private-a%3Bb%3Dc%2Cd%40e")
        #expect(PercentEncoding.encode("#server-to-user-1") == "%23server-to-user-1")
        #expect(PercentEncoding.encode("a b+é") == "a%20b%2B%C3%A9")
        #expect(FormFields.encode([("socket_id", "1.2"), ("channel_name[0]", "x")], style: .rfc3986) == "socket_id=1.2&channel_name%5B0%5D=x")
    }

    @Test func encryptedPayloadOpens() throws {
        let key = [UInt8](repeating: 7, count: 32)
        let nonce = [UInt8](repeating: 1, count: 24)
        let box = try SecretBoxTestHelper.seal(#"{"hello":"world"}"#, nonce: nonce, key: key)
        let text = #"{"nonce":"\#(Data(nonce).base64EncodedString())","ciphertext":"\#(Data(box).base64EncodedString())"}"#
        let payload = try #require(EncryptedPayload(text))
        #expect(try payload.open(with: key) == #"{"hello":"world"}"#)
        #expect(throws: (any Error).self) { try payload.open(with: [UInt8](repeating: 8, count: 32)) }
        #expect(EncryptedPayload.key(fromSharedSecret: Data(key).base64EncodedString()) == key)
        #expect(EncryptedPayload.key(fromSharedSecret: "c2hvcnQ=") == nil)
    }
}

@Suite struct AuthResponseTests {
    func data(_ text: String) -> Data { Data(text.utf8) }

    @Test func eachBadAnswerHasItsOwnCode() {
        func code(_ status: Int, _ body: String) -> String? {
            do {
                _ = try AuthEndpointResponse.channelAuthorization(AuthEndpointAnswer(status: status, body: data(body)))
                return nil
            } catch {
                return error.qualifiedCode
            }
        }
        #expect(code(403, #"{"error":"no"}"#) == "channels.auth.httpStatus")
        #expect(code(500, "") == "channels.auth.httpStatus")
        #expect(code(200, "") == "channels.auth.emptyBody")
        #expect(code(200, "<html>") == "channels.auth.notJSON")
        #expect(code(200, "[1]") == "channels.auth.notObject")
        #expect(code(200, #"{"token":"x"}"#) == "channels.auth.missingAuth")
        #expect(code(201, #"{"auth":"k:s"}"#) == nil)
    }

    @Test func statusAndBodyAreKept() {
        do {
            _ = try AuthEndpointResponse.channelAuthorization(AuthEndpointAnswer(status: 403, body: data(#"{"error":"forbidden"}"#)))
            Issue.record("403 must fail")
        } catch {
            #expect(error.status == 403)
            #expect(error.response?.bodyText == #"{"error":"forbidden"}"#)
        }
    }

    @Test func batchAnswerIsReadPerChannel() throws {
        let body = #"{"a":{"status":200,"data":{"auth":"k:a"}},"b":{"status":403,"data":{"error":"no"}},"c":{"data":"{\"auth\":\"k:c\"}"}}"#
        let results = try AuthEndpointResponse.batch(AuthEndpointAnswer(status: 200, body: data(body)), channels: ["a", "b", "c", "d"])
        #expect(try results["a"]?.get().auth == "k:a")
        #expect(try results["c"]?.get().auth == "k:c")
        guard case .failure(let b)? = results["b"], case .failure(let d)? = results["d"] else {
            Issue.record("b and d must fail")
            return
        }
        #expect(b.status == 403)
        #expect(d.status == 404)
        #expect(!BatchingChannelAuthorizer.fallsBack(b))
        #expect(BatchingChannelAuthorizer.fallsBack(d))
    }

    @Test func messagesNeverShowSecrets() {
        let error = ChannelAuthorizationError.httpStatus(HTTPErrorResponse(status: 500, body: Data(#"{"auth":"key:0123456789abcdef0123456789abcdef","shared_secret":"c2VjcmV0"}"#.utf8)))
        #expect(!error.message.contains("0123456789abcdef"))
        #expect(!error.message.contains("c2VjcmV0"))
        let rejection = ServerRejection.pusherError(code: nil, message: "Invalid signature: Expected HMAC SHA256 hex digest of 1.2:private-a, but got key:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
        #expect(!rejection.message.contains("0123456789abcdef0123"))
        #expect(rejection.message.contains("Invalid signature"))
    }
}
