import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// `terminate_connections` in a cluster of two real `clearance serve --backplane` (nodes A and B),
/// called by the official `pusher` Python library on node A.
@Suite("terminate_connections across a cluster", .timeLimit(.minutes(3)))
struct ClusterTerminateTests {
    @Test func thePythonLibraryTerminatesTheUsersConnectionsOnEveryNode() async throws {
        try await ServeCluster.withTwoNodes { nodeA, nodeB, _ in
            // Alice on both nodes, Bob on node B; all signed in.
            let aliceOnA = try await Self.signedIn(as: "alice", port: nodeA.port)
            let aliceOnB = try await Self.signedIn(as: "alice", port: nodeB.port)
            let bobOnB = try await Self.signedIn(as: "bob", port: nodeB.port)

            let run = try await PythonPeer.run(
                "channels_terminate.py", ["127.0.0.1", String(nodeA.port), TestHub.appID, TestHub.key, TestHub.secret, "alice"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains(#""result": {}"#), "\(run.stdout)")

            for (client, node) in [(aliceOnA, "A"), (aliceOnB, "B")] {
                try await eventually("alice's connection on node \(node) closed", timeout: .seconds(15)) { await client.state.isTerminal }
                guard case .failed(let error) = await client.state else {
                    Issue.record("alice on node \(node): \(await client.state)")
                    continue
                }
                #expect(error.closeCode == 4009)
            }
            try await Task.sleep(for: .milliseconds(500))
            let bobState = await bobOnB.state
            #expect(bobState.socketID != nil, "bob must stay connected: \(bobState)")
            await bobOnB.disconnect()
        }
    }

    /// A client of the test app on `port`, signed in as `userID` (signed with the app secret, as an
    /// app's server would).
    static func signedIn(as userID: String, port: Int) async throws -> ChannelClient {
        let authenticator = try InlineSecretUserAuthenticator(signer: TestHub.signer, userData: #"{"id":"\#(userID)"}"#)
        let client = ChannelClient(key: TestHub.key, options: TestHub.options(port, userAuthenticator: authenticator))
        await client.connect()
        try await client.signIn().subscribed()
        return client
    }
}
