import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

@Suite("Hub terminate_connections", .timeLimit(.minutes(1)))
struct HubTerminateConnectionsTests {
    /// A connection signed in as `userID`.
    private func signedIn(_ hub: HubServer, as userID: String) async throws -> TestWebSocketClient {
        let (client, socketID) = try await TestHub.connect(hub)
        let userData = #"{"id":"\#(userID)"}"#
        let auth = try TestHub.signer.authenticateUser(socketID: socketID, userData: userData).auth
        client.send(TestHub.frame(event: "pusher:signin", data: ["auth": auth, "user_data": userData]))
        _ = try await client.next(event: "pusher:signin_success")
        return client
    }

    @Test func closesEveryConnectionOfTheUserWith4009AndNoOther() async throws {
        try await TestHub.with { hub in
            let first = try await signedIn(hub, as: "alice")
            let second = try await signedIn(hub, as: "alice")
            let bob = try await signedIn(hub, as: "bob")
            let (anonymous, _) = try await TestHub.connect(hub)

            let response = try await TestHTTP(hub).signed("POST", "/apps/1234/users/alice/terminate_connections", body: "{}")
            #expect(response.status == 200)
            #expect(response.body == "{}")
            for client in [first, second] {
                let error = try await client.next(event: "pusher:error")
                #expect(error.dataObject["code"] as? Int == 4009)
                #expect((error.dataObject["message"] as? String)?.contains("terminated") == true)
                #expect(try await client.closeCode() == 4009)
            }
            #expect(try await bob.unexpectedFrameBeforePong() == nil)
            #expect(try await anonymous.unexpectedFrameBeforePong() == nil)

            // The path the official Python library sends, without /apps/{id}: the signing key names the app.
            let carol = try await signedIn(hub, as: "carol")
            let keyOnly = try await TestHTTP(hub).signed("POST", "/users/carol/terminate_connections", body: "{}")
            #expect(keyOnly.status == 200)
            #expect(try await carol.closeCode() == 4009)
            let unknownKey = try RESTRequestSigner(appID: "1234", key: "not-a-key", secret: TestHub.secret)
            #expect(try await TestHTTP(hub).signed("POST", "/users/bob/terminate_connections", body: "{}", signer: unknownKey).status == 404)
            let wrongSecret = try RESTRequestSigner(appID: "1234", key: TestHub.key, secret: "not-the-secret-of-this-app-0123456789")
            #expect(try await TestHTTP(hub).signed("POST", "/users/bob/terminate_connections", body: "{}", signer: wrongSecret).status == 401)

            // Unknown users and repeated calls are no error: nothing is left to close.
            #expect(try await TestHTTP(hub).signed("POST", "/apps/1234/users/alice/terminate_connections", body: "{}").status == 200)
            #expect(try await TestHTTP(hub).signed("POST", "/apps/1234/users/nobody/terminate_connections", body: "").status == 200)
            await bob.disconnect()
            await anonymous.disconnect()
        }
    }

    @Test func refusesUnsignedRequestsBadUserIDsAndBadBodies() async throws {
        try await TestHub.with { hub in
            let alice = try await signedIn(hub, as: "alice")
            let http = TestHTTP(hub)
            let unsigned = try await http.raw("POST", "/apps/1234/users/alice/terminate_connections", body: Data("{}".utf8))
            #expect(unsigned.status == 401)
            let tooLong = String(repeating: "u", count: 129)
            #expect(try await http.signed("POST", "/apps/1234/users/\(tooLong)/terminate_connections", body: "{}").status == 400)
            #expect(try await http.signed("POST", "/apps/1234/users/alice/terminate_connections", body: "[1]").status == 400)
            #expect(try await http.signed("POST", "/apps/9999/users/alice/terminate_connections", body: "{}").status == 404)
            // None of those closed anything.
            #expect(try await alice.unexpectedFrameBeforePong() == nil)
            await alice.disconnect()
        }
    }
}
