import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

@Suite("Hub HTTP API", .timeLimit(.minutes(1)))
struct HubHTTPAPITests {
    @Test func triggersToManyChannelsExceptTheExcludedSocket() async throws {
        try await TestHub.with { hub in
            let (a, aID) = try await TestHub.connect(hub)
            let (b, bID) = try await TestHub.connect(hub)
            for (client, id) in [(a, aID), (b, bID)] {
                try await TestHub.subscribe(client, socketID: id, channel: "one")
                try await TestHub.subscribe(client, socketID: id, channel: "private-two")
            }
            let body = #"{"name":"update","channels":["one","private-two"],"data":"{\"v\":1}","socket_id":"\#(aID)"}"#
            let response = try await TestHTTP(hub).signed("POST", "/apps/1234/events", body: body)
            #expect(response.status == 200)
            #expect(response.body == "{}")
            let first = try await b.next(event: "update")
            let second = try await b.next(event: "update")
            #expect(Set([first.channel, second.channel]) == ["one", "private-two"])
            #expect(first.rawData as? String == #"{"v":1}"#)
            #expect(try await a.unexpectedFrameBeforePong() == nil)
            await a.disconnect()
            await b.disconnect()
        }
    }

    @Test func triggerCanReportChannelAttributes() async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "presence-p", channelData: TestHub.presenceData("alice"))
            let body = #"{"name":"e","channel":"presence-p","data":"x","info":"subscription_count,user_count"}"#
            let response = try await TestHTTP(hub).signed("POST", "/apps/1234/events", body: body)
            #expect(response.status == 200)
            let attributes = (response.json["channels"] as? [String: Any])?["presence-p"] as? [String: Int]
            #expect(attributes == ["subscription_count": 1, "user_count": 1])
            await client.disconnect()
        }
    }

    @Test func batchEventsArePublishedInOrder() async throws {
        try await TestHub.with { hub in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "batch")
            let body = #"{"batch":[{"name":"first","channel":"batch","data":"1"},{"name":"second","channel":"batch","data":"2"}]}"#
            let response = try await TestHTTP(hub).signed("POST", "/apps/1234/batch_events", body: body)
            #expect(response.status == 200)
            #expect(await client.next(timeout: .seconds(15))?.event == "first")
            #expect(await client.next(timeout: .seconds(15))?.event == "second")
            await client.disconnect()
        }
    }

    @Test func channelQueriesReportOccupancyAndMembers() async throws {
        try await TestHub.with { hub in
            let http = TestHTTP(hub)
            let (alice, aliceID) = try await TestHub.connect(hub)
            let (bob, bobID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(alice, socketID: aliceID, channel: "presence-room", channelData: TestHub.presenceData("alice"))
            try await TestHub.subscribe(bob, socketID: bobID, channel: "presence-room", channelData: TestHub.presenceData("bob"))
            try await TestHub.subscribe(bob, socketID: bobID, channel: "news")

            let all = try await http.signed("GET", "/apps/1234/channels")
            #expect(all.status == 200)
            #expect(Set((all.json["channels"] as? [String: Any])?.keys.map { $0 } ?? []) == ["news", "presence-room"])

            let presence = try await http.signed("GET", "/apps/1234/channels", query: ["filter_by_prefix": "presence-", "info": "user_count"])
            #expect((presence.json["channels"] as? [String: Any])?["presence-room"] as? [String: Int] == ["user_count": 2])

            let one = try await http.signed("GET", "/apps/1234/channels/presence-room", query: ["info": "user_count,subscription_count"])
            #expect(one.json["occupied"] as? Bool == true)
            #expect(one.json["user_count"] as? Int == 2)
            #expect(one.json["subscription_count"] as? Int == 2)

            let empty = try await http.signed("GET", "/apps/1234/channels/nobody-here")
            #expect(empty.json["occupied"] as? Bool == false)

            let users = try await http.signed("GET", "/apps/1234/channels/presence-room/users")
            #expect((users.json["users"] as? [[String: String]])?.compactMap { $0["id"] } == ["alice", "bob"])
            await alice.disconnect()
            await bob.disconnect()
        }
    }

    @Test func expiredAndFutureTimestampsAreRefusedWith401() async throws {
        try await TestHub.with { hub in
            let http = TestHTTP(hub)
            for offset in [-700.0, 700.0] {
                let response = try await http.signed("GET", "/apps/1234/channels", now: Date().addingTimeInterval(offset))
                #expect(response.status == 401)
                #expect(["signing.expiredTimestamp", "signing.futureTimestamp"].contains(response.json["error"] as? String))
            }
            #expect(try await http.signed("GET", "/apps/1234/channels", now: Date().addingTimeInterval(-500)).status == 200)
        }
    }

    @Test func wrongCredentialsAreRefusedWith401() async throws {
        try await TestHub.with { hub in
            let http = TestHTTP(hub)
            let wrongSecret = try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: "wrong")
            #expect(try await http.signed("GET", "/apps/1234/channels", signer: wrongSecret).json["error"] as? String == "signing.invalidSignature")
            let wrongKey = try RESTRequestSigner(appID: TestHub.appID, key: "other-key", secret: TestHub.secret)
            #expect(try await http.signed("GET", "/apps/1234/channels", signer: wrongKey).status == 401)
            #expect(try await http.raw("GET", "/apps/1234/channels").status == 401)
            #expect(try await http.raw("GET", "/apps/1234/channels?auth_key=test-key&auth_timestamp=1&auth_version=1.0&auth_signature=00").status == 401)
        }
    }

    @Test func aTamperedBodyIsRefused() async throws {
        try await TestHub.with { hub in
            let http = TestHTTP(hub)
            let body = Data(#"{"name":"e","channel":"a","data":"x"}"#.utf8)
            let signature = try TestHub.restSigner.sign(method: "POST", path: "/apps/1234/events", body: body)
            let tampered = Data(#"{"name":"e","channel":"b","data":"x"}"#.utf8)
            let response = try await http.raw("POST", "/apps/1234/events?" + signature.percentEncodedQuery, body: tampered)
            #expect(response.status == 401)
            #expect(response.json["error"] as? String == "signing.bodyMD5Mismatch")
        }
    }

    @Test(arguments: [
        ("not json", 400, "api.malformedJSON"),
        ("[1]", 400, "api.malformedJSON"),
        (#"{"channel":"a","data":"x"}"#, 400, "api.missingField"),
        (#"{"name":"e","channel":"a"}"#, 400, "api.missingField"),
        (#"{"name":"e","data":"x"}"#, 400, "api.missingField"),
        (#"{"name":"e","channel":"a","data":{"not":"a string"}}"#, 400, "api.invalidField"),
        (#"{"name":"","channel":"a","data":"x"}"#, 400, "api.invalidField"),
        (#"{"name":"e","channels":[],"data":"x"}"#, 400, "api.invalidField"),
        (#"{"name":"e","channels":["a","a"],"data":"x"}"#, 400, "api.invalidField"),
        (#"{"name":"e","channels":["a"],"channel":"b","data":"x"}"#, 400, "api.invalidField"),
        (#"{"name":"e","channels":["bad name"],"data":"x"}"#, 400, "signing.invalidChannelName"),
        (#"{"name":"e","channels":["private-encrypted-a","b"],"data":"x"}"#, 400, "api.invalidField"),
        (#"{"name":"e","channel":"a","data":"x","socket_id":"abc"}"#, 400, "api.invalidField"),
        (#"{"name":"e","channel":"a","data":"x","socket_id":1.5}"#, 400, "api.invalidField"),
        (#"{"name":"e","channel":"a","data":"x","info":"everything"}"#, 400, "api.invalidInfo"),
    ])
    func badEventBodiesAreRefused(_ body: String, _ status: Int, _ code: String) async throws {
        try await TestHub.with { hub in
            let response = try await TestHTTP(hub).signed("POST", "/apps/1234/events", body: body)
            #expect(response.status == status)
            #expect(response.json["error"] as? String == code)
        }
    }

    @Test func limitsOnEventsAreEnforced() async throws {
        try await TestHub.with { hub throws in
            let http = TestHTTP(hub)
            let tooMuchData = #"{"name":"e","channel":"a","data":""# + String(repeating: "x", count: 10_241) + #""}"#
            #expect(try await http.signed("POST", "/apps/1234/events", body: tooMuchData).status == 413)
            let justEnough = #"{"name":"e","channel":"a","data":""# + String(repeating: "x", count: 10_240) + #""}"#
            #expect(try await http.signed("POST", "/apps/1234/events", body: justEnough).status == 200)

            let channels = (0...100).map { "\"c\($0)\"" }.joined(separator: ",")
            let tooMany = #"{"name":"e","channels":[\#(channels)],"data":"x"}"#
            #expect(try await http.signed("POST", "/apps/1234/events", body: tooMany).status == 400)

            let longName = #"{"name":""# + String(repeating: "n", count: 201) + #"","channel":"a","data":"x"}"#
            #expect(try await http.signed("POST", "/apps/1234/events", body: longName).status == 400)

            let items = (0...10).map { _ in #"{"name":"e","channel":"a","data":"x"}"# }.joined(separator: ",")
            let bigBatch = #"{"batch":[\#(items)]}"#
            #expect(try await http.signed("POST", "/apps/1234/batch_events", body: bigBatch).status == 400)
            #expect(try await http.signed("POST", "/apps/1234/batch_events", body: #"{"batch":[1]}"#).status == 400)
            #expect(try await http.signed("POST", "/apps/1234/batch_events", body: #"{}"#).status == 400)

            let huge = String(repeating: " ", count: 300_000)
            #expect(try await http.signed("POST", "/apps/1234/events", body: huge).status == 413)
        }
    }

    @Test func queryMistakesAreRefused() async throws {
        try await TestHub.with { hub in
            let http = TestHTTP(hub)
            #expect(try await http.signed("GET", "/apps/unknown/channels").status == 404)
            #expect(try await http.signed("GET", "/apps/1234/channels", query: ["info": "user_count"]).status == 400)
            #expect(try await http.signed("GET", "/apps/1234/channels", query: ["info": "bogus"]).status == 400)
            #expect(try await http.signed("GET", "/apps/1234/channels/news", query: ["info": "user_count"]).status == 400)
            #expect(try await http.signed("GET", "/apps/1234/channels/news/users").status == 400)
            #expect(try await http.signed("GET", "/apps/1234/channels/bad%20name").status == 400)
            let signature = try TestHub.restSigner.sign(method: "GET", path: "/apps/1234/channels")
            let doubled = try await http.raw("GET", "/apps/1234/channels?" + signature.percentEncodedQuery + "&auth_key=x")
            #expect(doubled.status == 400)
            #expect(doubled.json["error"] as? String == "api.duplicateParameter")
        }
    }
}
