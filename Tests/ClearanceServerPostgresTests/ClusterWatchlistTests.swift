import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// Watchlist events across a cluster of two real `clearance serve --backplane` nodes on a real
/// PostgreSQL: "online" is decided for the whole cluster, and a user with a connection on any
/// node, also while another node restarts (SIGTERM, then a new process on its port), is never
/// reported offline (shown by a later event of another user, erin, that came after it).
@Suite("Watchlist across a cluster", .timeLimit(.minutes(4)))
struct ClusterWatchlistTests {
    @Test func onlineAndOfflineSpanTheNodesAndARestartingNodeSendsNoFalseOffline() async throws {
        // At info, a node logs each connection's end (`hub.connection.closed`, with its socket id).
        try await ServeCluster.withTwoNodes(arguments: ["--log-level", "info"]) { nodeA, nodeB, cluster in
            // Alice watches bob, carol and erin (a positive control) from node A (a ChannelClient,
            // and the same from Python's raw frames); bob signs in on node B.
            let alice = try await Self.signedIn(as: "alice", watching: ["bob", "carol", "erin"], port: nodeA.port)
            let python = try PythonPeer.start("hub_watch.py", [
                "127.0.0.1", String(nodeA.port), TestHub.appID, TestHub.key, TestHub.secret, "alice-py", "bob,carol,erin", "-", "120",
            ])
            defer { Task { await python.stop(.kill) } }
            #expect(await python.line(timeout: .seconds(30)) { $0.contains(#""ready": true"#) } != nil, "\(python.stderr.suffix(1_000))")
            let bobOnB = try await Self.signedIn(as: "bob", port: nodeB.port)
            try await alice.expect([.online: ["bob"]])

            // Bob also on node A. Node B restarts: stopped with SIGTERM, and a new process of the
            // cluster on the same port, where bob's client reconnects and signs in again. Bob is
            // online through node A all along, so alice (and the Python watcher) hear nothing.
            let bobOnA = try await Self.signedIn(as: "bob", port: nodeA.port)
            let firstSocket = try #require(await bobOnB.client.socketID)
            let restartedB = try await ServeCluster.restart(nodeB)
            try await withCleanup {
                try await eventually("bob's client on the restarted node B", timeout: .seconds(30)) {
                    guard let socket = await bobOnB.client.socketID else { return false }
                    return socket != firstSocket
                }
                _ = try await bobOnB.client.signIn()  // signed in on the new socket
                // The positive control: erin signs in on the restarted node B after bob. Node A
                // hears node B in order, so whatever bob's return made it say came before.
                let erin = try await Self.signedIn(as: "erin", port: restartedB.port)
                try await alice.expect([.online: ["bob"], .online: ["erin"]])
                try await eventually("python's view of erin") { HubWatchOutput.watchlist(python).count >= 2 }
                #expect(HubWatchOutput.watchlist(python) == ["online:bob", "online:erin"], "\(python.stdout.suffix(1_000))")
                // Bob leaves node A: his connection on the restarted node B keeps him online.
                let bobOnASocket = try #require(await bobOnA.client.socketID)
                await bobOnA.client.disconnect()
                try await eventually("node A ended bob's connection") { nodeA.loggedConnectionClosed(socketID: bobOnASocket) }
                // The positive control: erin leaves node B, which node A hears after it ended bob's
                // connection there.
                await erin.client.disconnect()
                try await alice.expect([.online: ["bob"], .online: ["erin"], .offline: ["erin"]])
                // Bob's last connection closes: offline, once.
                await bobOnB.client.disconnect()
                try await alice.expect([.online: ["bob"], .online: ["erin"], .offline: ["erin"], .offline: ["bob"]])
                try await eventually("python's view") {
                    HubWatchOutput.watchlist(python) == ["online:bob", "online:erin", "offline:erin", "offline:bob"]
                }
            } cleanup: {
                await restartedB.stop(.kill)
            }

            // Carol on a third node: online on node A; a watcher signing in later on node A
            // learns at once that she is online; her node stops: she goes offline with it.
            try await ServeCluster.withNode(environment: cluster) { nodeC in
                let carol = try await Self.signedIn(as: "carol", port: nodeC.port)
                try await alice.expect([.online: ["bob"], .online: ["erin"], .offline: ["erin"], .offline: ["bob"], .online: ["carol"]])
                let dan = try await Self.signedIn(as: "dan", watching: ["carol", "bob"], port: nodeA.port)
                try await dan.expect([.online: ["carol"]])
                await nodeC.stop()
                try await dan.expect([.online: ["carol"], .offline: ["carol"]])
                await carol.client.disconnect()
                await dan.client.disconnect()
            }
            await alice.client.disconnect()
        }
    }

    /// A signed-in client (user data signed with the app secret, as an app's server would) and
    /// the watchlist events it received.
    final class Signed: Sendable {
        let client: ChannelClient
        private let received = Locked([WatchlistEvent]())
        private let reader: Task<Void, Never>

        init(client: ChannelClient) {
            self.client = client
            let events = client.watchlistEvents
            let received = received
            reader = Task { for await event in events { received.withLock { $0.append(event) } } }
        }

        deinit { reader.cancel() }

        var events: [WatchlistEvent] { received.withLock { $0 } }

        /// Waits until the events received are exactly `expected`, in order.
        func expect(_ expected: KeyValuePairs<WatchlistEvent.Kind, [String]>) async throws {
            let wanted = expected.map { WatchlistEvent(kind: $0.key, userIDs: $0.value) }
            try await eventually("watchlist events \(wanted)", timeout: .seconds(20)) { events.count >= wanted.count }
            #expect(events == wanted)
        }
    }

    static func signedIn(as userID: String, watching watchlist: [String] = [], port: Int) async throws -> Signed {
        let authenticator = try TestHub.userAuthenticator(userID, watching: watchlist)
        let client = ChannelClient(key: TestHub.key, options: TestHub.options(port, userAuthenticator: authenticator))
        // The stream first: the sign-in's "online now" event follows it at once.
        let signed = Signed(client: client)
        await client.connect()
        _ = try await client.connected()
        _ = try await client.signIn()
        return signed
    }
}
