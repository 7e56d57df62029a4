import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Hummingbird
import Testing

@Suite("Auth endpoints", .timeLimit(.minutes(1)))
struct AuthEndpointTests {
    private let bearer = ["Authorization": "Bearer alice-token"]

    /// The JSON `path` answers alice's form `body` with, after checking it answered 200.
    private func answer(_ hub: HubServer, _ body: String, path: String = "/pusher/auth") async throws -> [String: Any] {
        let response = try await TestHTTP(hub).form(path, body, headers: bearer)
        #expect(response.status == 200, "\(response.body)")
        return response.json
    }

    /// The string member `name` of `json`.
    private func string(_ json: [String: Any], _ name: String) throws -> String {
        try #require(json[name] as? String, "no string \(name) in \(json)")
    }

    @Test func privateChannelsAreSignedForKnownUsers() async throws {
        try await TestHub.with { hub in
            let json = try await answer(hub, "socket_id=123.456&channel_name=private-orders")
            #expect(TestHub.signer.verifyChannelAuth(auth: try string(json, "auth"), socketID: "123.456", channelName: "private-orders"))
            #expect(json.count == 1)
        }
    }

    @Test func presenceChannelsGetChannelDataNamingTheUser() async throws {
        try await TestHub.with { hub in
            let json = try await answer(hub, "socket_id=1.2&channel_name=presence-lobby")
            let channelData = try string(json, "channel_data")
            #expect(channelData == #"{"user_id":"alice","user_info":{"name":"Alice"}}"#)
            #expect(TestHub.signer.verifyChannelAuth(auth: try string(json, "auth"), socketID: "1.2", channelName: "presence-lobby", channelData: channelData))
        }
    }

    @Test func encryptedChannelsGetTheSharedSecret() async throws {
        try await TestHub.with { hub in
            let json = try await answer(hub, "socket_id=1.2&channel_name=private-encrypted-vault")
            #expect(try string(json, "shared_secret") == (try TestHub.signer.sharedSecret(channelName: "private-encrypted-vault")))
        }
    }

    @Test func encryptedChannelsWithoutAMasterKeyAre400() async throws {
        try await TestHub.with(TestHub.configuration { $0.encryptionMasterKey = nil }) { hub in
            let response = try await TestHTTP(hub).form("/pusher/auth", "socket_id=1.2&channel_name=private-encrypted-vault", headers: bearer)
            #expect(response.status == 400)
            #expect(response.json["error"] as? String == "auth.unsupportedChannel")
        }
    }

    @Test func batchedRequestsAnswerPerChannel() async throws {
        try await TestHub.with { hub in
            let body = "socket_id=1.2&channel_name%5B0%5D=private-a&channel_name%5B1%5D=presence-b&channel_name%5B2%5D=bad%20name"
            let response = try await TestHTTP(hub).form("/pusher/auth", body, headers: bearer)
            #expect(response.status == 200)
            let a = try #require(response.json["private-a"] as? [String: Any])
            #expect(a["status"] as? Int == 200)
            let auth = try #require((a["data"] as? [String: Any])?["auth"] as? String)
            #expect(TestHub.signer.verifyChannelAuth(auth: auth, socketID: "1.2", channelName: "private-a"))
            let b = try #require(response.json["presence-b"] as? [String: Any])
            #expect((b["data"] as? [String: Any])?["channel_data"] is String)
            let bad = try #require(response.json["bad name"] as? [String: Any])
            #expect(bad["status"] as? Int == 400)
        }
    }

    @Test func batchedDenialsAre403PerChannel() async throws {
        try await TestHub.with { hub in
            let response = try await TestHTTP(hub).form("/pusher/auth", "socket_id=1.2&channel_name[0]=private-a&channel_name[1]=private-b")
            #expect(response.status == 200)
            #expect((response.json["private-a"] as? [String: Any])?["status"] as? Int == 403)
            #expect((response.json["private-b"] as? [String: Any])?["status"] as? Int == 403)
        }
    }

    @Test func userAuthenticationSignsTheUserData() async throws {
        try await TestHub.with { hub in
            let json = try await answer(hub, "socket_id=1.2", path: "/pusher/user-auth")
            let userData = try string(json, "user_data")
            #expect(userData == #"{"id":"alice","user_info":{"name":"Alice"}}"#)
            #expect(TestHub.signer.verifyUserAuth(auth: try string(json, "auth"), socketID: "1.2", userData: userData))
        }
    }

    @Test func callersAreIdentifiedByCookieAndBasicToo() async throws {
        try await TestHub.with { hub in
            let http = TestHTTP(hub)
            let cookie = try await http.form("/pusher/auth", "socket_id=1.2&channel_name=presence-x", headers: ["Cookie": "clearance_token=bob-token"])
            #expect((cookie.json["channel_data"] as? String)?.contains(#""user_id":"bob""#) == true)
            let basic = "Basic " + Data("anyone:carol-token".utf8).base64EncodedString()
            let viaBasic = try await http.form("/pusher/auth", "socket_id=1.2&channel_name=presence-x", headers: ["Authorization": basic])
            #expect(viaBasic.json["channel_data"] as? String == #"{"user_id":"carol"}"#)
        }
    }

    @Test func jsonBodiesAreAcceptedToo() async throws {
        try await TestHub.with { hub in
            let body = Data(#"{"socket_id":"1.2","channel_name":"private-a"}"#.utf8)
            let response = try await TestHTTP(hub).raw("POST", "/pusher/auth", body: body, contentType: "application/json", headers: bearer)
            #expect(response.status == 200)
        }
    }

    @Test(arguments: [
        ("/pusher/auth", "channel_name=private-a", 400, "auth.missingSocketID"),
        ("/pusher/auth", "socket_id=abc&channel_name=private-a", 400, "auth.invalidSocketID"),
        ("/pusher/auth", "socket_id=1.2.3&channel_name=private-a", 400, "auth.invalidSocketID"),
        ("/pusher/auth", "socket_id=1.2", 400, "auth.missingChannelName"),
        ("/pusher/auth", "socket_id=1.2&channel_name=bad%20name", 400, "auth.invalidChannelName"),
        ("/pusher/auth", "socket_id=1.2&channel_name=", 400, "auth.invalidChannelName"),
        ("/pusher/auth", "socket_id=1.2&channel_name=%23server-to-user-alice", 400, "auth.invalidChannelName"),
        ("/pusher/auth", "socket_id=1.2&channel_name=a&channel_name[0]=b", 400, "auth.invalidBatch"),
        ("/pusher/auth", "socket_id=1.2&channel_name[x]=b", 400, "auth.invalidBatch"),
        ("/pusher/auth", "socket_id=1.2&socket_id=3.4&channel_name=a", 400, "auth.duplicateField"),
        ("/pusher/auth", "socket_id=%zz&channel_name=a", 400, "auth.malformedBody"),
        ("/pusher/user-auth", "", 400, "auth.missingSocketID"),
        ("/pusher/user-auth", "socket_id=nope", 400, "auth.invalidSocketID"),
    ])
    func badInputIs400(_ path: String, _ body: String, _ status: Int, _ code: String) async throws {
        try await TestHub.with { hub in
            let response = try await TestHTTP(hub).form(path, body, headers: ["Authorization": "Bearer alice-token"])
            #expect(response.status == status)
            #expect(response.json["error"] as? String == code)
            #expect(response.json["message"] is String)
        }
    }

    @Test func malformedJSONAndCredentialsAre400() async throws {
        try await TestHub.with { hub in
            let http = TestHTTP(hub)
            let json = try await http.raw("POST", "/pusher/auth", body: Data("{nope".utf8), contentType: "application/json")
            #expect(json.status == 400)
            let basic = try await http.form("/pusher/auth", "socket_id=1.2&channel_name=a", headers: ["Authorization": "Basic !!!"])
            #expect(basic.json["error"] as? String == "auth.malformedCredentials")
            let emptyBearer = try await http.form("/pusher/auth", "socket_id=1.2&channel_name=a", headers: ["Authorization": "Bearer"])
            #expect(emptyBearer.status == 400)
        }
    }

    @Test func unknownAndMissingCallersAre403() async throws {
        try await TestHub.with { hub in
            let http = TestHTTP(hub)
            let unknown = try await http.form("/pusher/auth", "socket_id=1.2&channel_name=private-a", headers: ["Authorization": "Bearer nobody"])
            #expect(unknown.status == 403)
            #expect(unknown.json["error"] as? String == "auth.forbidden")
            #expect(try await http.form("/pusher/auth", "socket_id=1.2&channel_name=private-a").status == 403)
            #expect(try await http.form("/pusher/user-auth", "socket_id=1.2").status == 403)
        }
    }

    @Test func oversizedBodiesAre413() async throws {
        try await TestHub.with { hub in
            let body = "socket_id=1.2&channel_name=" + String(repeating: "a", count: 70_000)
            let response = try await TestHTTP(hub).form("/pusher/auth", body, headers: bearer)
            #expect(response.status == 413)
        }
    }

    @Test func appDecisionsThatDoNotNameThePresenceMemberAre500NotCrashes() async throws {
        let signer = TestHub.signer
        let endpoints = PusherAuthEndpoints(signer: signer, identifier: BearerTokenIdentifier { token in token }) { _ in .allow }
        let router = Router()
        endpoints.register(on: router)
        let server = try await RunningServer.start(router, logger: TestHub.quietLogger)
        let http = TestHTTP(baseURL: server.baseURL)
        #expect(try await http.form("/pusher/auth", "socket_id=1.2&channel_name=private-a").status == 200)
        let presence = try await http.form("/pusher/auth", "socket_id=1.2&channel_name=presence-a")
        #expect(presence.status == 500)
        #expect(presence.json["error"] as? String == "auth.decisionFailed")
        #expect(try await http.form("/pusher/user-auth", "socket_id=1.2").status == 500)
        await server.stop()
    }
}
