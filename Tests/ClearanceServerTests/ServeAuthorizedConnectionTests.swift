import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Authorized connections in `clearance serve` as built, from Python: raw frames through
/// `websocket-client`, the sign-in and the private channel signed by the official `pusher`
/// library's `authenticate_user` and `authenticate`.
@Suite("clearance serve: authorized connections (Python)", .timeLimit(.minutes(3)))
struct ServeAuthorizedConnectionTests {
    @Test func pythonConnectionsAreClosedWith4009UnlessTheySignInOrSubscribeToAPrivateChannel() async throws {
        let timeout = 1.0 * Double(TestTiming.scale)
        try await ServeProcess.with(limits: TestHub.limits(), development: false, adjustApp: { app in
            app.id = "424242"  // the Python library takes digits only
            app.authorizedConnections = true
            app.authorizedConnectionTimeout = timeout
        }) { serve in
            func run(_ mode: String) async throws -> [String: Any] {
                let output = try await PythonPeer.run("hub_authorized_connection.py", [
                    "127.0.0.1", String(serve.port), "424242", TestHub.key, TestHub.secret, mode, String(timeout + 2),
                ])
                #expect(output.status == 0, "\(mode): \(output.stderr.suffix(1_000))")
                return (try? JSONSerialization.jsonObject(with: Data(output.stdout.utf8))) as? [String: Any] ?? [:]
            }
            async let idle = run("idle")
            async let publicOnly = run("public")
            async let signedIn = run("signin")
            async let privateOne = run("private")
            for (mode, result) in try await [("idle", idle), ("public", publicOnly)] {
                #expect(result["closed"] as? Bool == true && result["code"] as? Int == 4009, "\(mode): \(result)")
                #expect(result["reason"] as? String == "Connection not authorized within timeout", "\(mode): \(result)")
                #expect((result["error"] as? [String: Any])?["code"] as? Int == 4009, "\(mode): \(result)")
            }
            let kept = try await (signedIn, privateOne)
            #expect(kept.0["closed"] as? Bool == false && (kept.0["events"] as? [String])?.contains("pusher:signin_success") == true, "\(kept.0)")
            #expect(kept.1["closed"] as? Bool == false
                && (kept.1["events"] as? [String])?.contains("pusher_internal:subscription_succeeded") == true, "\(kept.1)")

            // ChannelClients that sign in, or subscribe to a private channel, stay past the timeout.
            let signer = try ChannelAuthSigner(key: TestHub.key, secret: TestHub.secret)
            let signingIn = ChannelClient(key: TestHub.key, options: TestHub.options(
                serve.port, userAuthenticator: try InlineSecretUserAuthenticator(signer: signer, userData: #"{"id":"swift-user"}"#)))
            await signingIn.connect()
            _ = try await signingIn.connected()
            _ = try await signingIn.signIn()
            let privateClient = ChannelClient(key: TestHub.key, options: TestHub.options(
                serve.port, authorizer: try InlineSecretChannelAuthorizer(key: TestHub.key, secret: TestHub.secret)))
            await privateClient.connect()
            try await privateClient.subscribe("private-swift").subscribed()
            // The positive control: a connection that does neither, opened after them, is closed
            // with 4009 at the timeout, so theirs has passed too.
            let control = try await serve.connectedClient()
            // (Its 1 s timeout and 10 s more, stretched once by the helper.)
            #expect(try await control.closeCode(timeout: .seconds(11)) == 4009)
            #expect(await signingIn.state.isConnected)
            #expect(await privateClient.state.isConnected)
            await signingIn.disconnect()
            await privateClient.disconnect()

            // A ChannelClient that does neither fails for good with 4009 and does not reconnect.
            let client = ChannelClient(key: TestHub.key, options: TestHub.options(serve.port))
            let states = client.states
            let connections = Locked(0)
            let counter = Task { for await state in states { if state.isConnected { connections.withLock { $0 += 1 } } else if state == .disconnected { break } } }
            await client.connect()
            let state = try await first(client.states, timeout: .seconds(11)) { $0.isTerminal }
            guard case let .failed(error) = state, case let .closedByServer(code, reason) = error else {
                Issue.record("not closed by the server: \(state)")
                return
            }
            #expect(code == 4009 && reason == "Connection not authorized within timeout")
            #expect(await client.reconnectScheduled == false)
            #expect(await client.state == state)
            await client.disconnect()
            await counter.value  // every state up to `disconnect()`'s, which ends the count
            #expect(connections.withLock { $0 } == 1)
        }
    }
}
