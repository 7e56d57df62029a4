import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import ClearanceTesting
import Foundation
import Testing

@Suite("Hub logging", .timeLimit(.minutes(1)))
struct HubLoggingTests {
    @Test func logsNeverContainSecretsTokensOrSignatures() async throws {
        let logs = LogCapture()
        let hub = try await TestHub.start(logger: logs.logger("hub"))
        var secrets = [TestHub.secret, TestHub.masterKey, TestHub.alice.token, TestHub.bob.token]
        do {
            let http = TestHTTP(hub)
            let authResponse = try await http.form("/pusher/auth", "socket_id=1.2&channel_name=private-a", headers: ["Authorization": "Bearer alice-token"])
            secrets.append(try #require(authResponse.json["auth"] as? String))
            _ = try await http.form("/pusher/auth", "socket_id=1.2&channel_name=private-a", headers: ["Authorization": "Bearer wrong-token-value"])
            secrets.append("wrong-token-value")

            let (client, socketID) = try await TestHub.connect(hub)
            let subscribe = TestHub.subscribeFrame(channel: "private-logged", socketID: socketID)
            secrets.append(try TestHub.signer.authorizeChannel(socketID: socketID, channelName: "private-logged").auth)
            client.send(subscribe)
            _ = try await client.next(event: "pusher_internal:subscription_succeeded")
            client.send(TestHub.subscribeFrame(channel: "private-refused", socketID: socketID, auth: "test-key:" + String(repeating: "ab", count: 32)))
            _ = try await client.next(event: "pusher:subscription_error")
            secrets.append(String(repeating: "ab", count: 32))

            let signature = try TestHub.restSigner.sign(method: "GET", path: "/apps/1234/channels")
            secrets.append(signature.authSignature)
            _ = try await http.raw("GET", "/apps/1234/channels?" + signature.percentEncodedQuery)
            let wrong = try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: "not-the-secret")
            let wrongSignature = try wrong.sign(method: "GET", path: "/apps/1234/channels")
            secrets.append(wrongSignature.authSignature)
            _ = try await http.raw("GET", "/apps/1234/channels?" + wrongSignature.percentEncodedQuery)
            await client.disconnect()
        } catch {
            await hub.stop()
            throw error
        }
        await hub.stop()

        let text = logs.text
        #expect(text.contains("hub.connection.opened"))
        #expect(text.contains("hub.api.rejected"))
        for secret in secrets {
            #expect(!text.contains(secret), "a secret appeared in the logs")
        }
    }
}
