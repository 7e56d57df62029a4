import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceSigning
import ClearanceTestSupport
import Clearance
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
            // The positive control: a round trip of bob's with node B after the terminate. Had
            // node B closed bob too, his close would have come before the answer.
            try await bobOnB.subscribe("after-the-terminate").subscribed()
            let bobState = await bobOnB.state
            #expect(bobState.socketID != nil, "bob must stay connected: \(bobState)")
            await bobOnB.disconnect()
        }
    }

    /// Termination is state in the database for its grace period, not a message: every one of
    /// five reaches the other node, also one asked for while the database was stopped (node A
    /// answers 200 at once and writes it once the database is back; node B, whose link saw the
    /// database go, reads it when it can again), and a socket that got its sign-in signed before
    /// the terminate cannot use it on either node.
    @Test func fiveOfFiveTerminatesReachTheOtherNodeAlsoAcrossADatabaseRestart() async throws {
        // At debug level node B logs every failed attempt to reach the database.
        try await ServeCluster.withTwoNodesAndDatabase(arguments: ["--log-level", "debug"]) { nodeA, nodeB, database in
            for index in 1...5 {
                let user = "user-\(index)"
                let onB = try await Self.signedIn(as: user, port: nodeB.port)
                #expect(try await nodeA.http.signed("POST", "/apps/\(TestHub.appID)/users/\(user)/terminate_connections", body: "{}").status == 200)
                try await eventually("\(user)'s connection on node B closed", timeout: .seconds(15)) { await onB.state.isTerminal }
                guard case .failed(let error) = await onB.state else { throw ChildProcess.Failure("\(user): \(await onB.state)") }
                #expect(error.closeCode == 4009)
            }

            // The database away for 3 s while node A is asked: the terminate is not lost.
            let carolOnB = try await Self.signedIn(as: "carol", port: nodeB.port)
            // A spare connection whose sign-in was signed now, before the terminate, and kept.
            let saved = Locked<UserAuthentication?>(nil)
            let spare = ChannelClient(key: TestHub.key, options: TestHub.options(nodeB.port, userAuthenticator: CustomUserAuthenticator { socketID in
                if let kept = saved.withLock({ $0 }) { return kept }
                throw ChannelAuthorizationError.denied(reason: "no saved signature for \(socketID)")
            }))
            await spare.connect()
            let spareID = try await spare.connected()
            saved.withLock { $0 = try? TestHub.signer.authenticateUser(socketID: spareID, userData: #"{"id":"carol"}"#) }
            let unavailableBefore = nodeB.process.stdout.components(separatedBy: "backplane unavailable").count
            let attemptsBefore = nodeB.process.stderr.components(separatedBy: "backplane.attempt.failed").count
            try await database.stopDatabase()
            #expect(try await nodeA.http.signed("POST", "/apps/\(TestHub.appID)/users/carol/terminate_connections", body: "{}").status == 200)
            // The database stays away until node B has seen it go (its link says so), so that B
            // can only learn of the terminate after it is back.
            try await eventually("node B lost the database", timeout: .seconds(30)) {
                nodeB.process.stdout.components(separatedBy: "backplane unavailable").count > unavailableBefore
            }
            #expect(!(await carolOnB.state.isTerminal), "carol is still connected on node B while the database is away")
            // The recipe's outage of 3 s, seen by node B: its loss of the database and three more
            // attempts to reach it, a reconnect delay (1 s) apart, all failed.
            try await eventually("node B failed to reach the database three times more", timeout: .seconds(30)) {
                nodeB.process.stderr.components(separatedBy: "backplane.attempt.failed").count >= attemptsBefore + 4
            }
            try await database.startDatabase()
            try await eventually("carol's connection on node B closed after the database came back", timeout: .seconds(30)) {
                await carolOnB.state.isTerminal
            }
            guard case .failed(let error) = await carolOnB.state else { throw ChildProcess.Failure("carol: \(await carolOnB.state)") }
            #expect(error.closeCode == 4009)

            // The sign-in signed before the terminate is refused on node B.
            do throws(ChannelError) {
                _ = try await spare.signIn()
                Issue.record("the saved sign-in was accepted after the terminate")
            } catch {
                #expect(error.message.contains("ended this user's connections"), "\(error.message)")
            }
            await spare.disconnect()
        }
    }

    /// The recipe "with a full queue", with the real executable: node A's backplane URL
    /// bounds its queue of unsent messages to one (`?queue_limit=1`), and its sender is held
    /// up by the database (a session of psql holds the payload table locked, so the insert of
    /// an event too long for a notification waits); events on cache channels (always sent to
    /// the other nodes) then overflow the queue (`backplane.queue.appFull` in its log: with one
    /// app, the app's part is the whole queue; counted in `clearance_backplane_dropped_total` and
    /// under the app in `clearance_app_refused_total{what="backplane"}`). A terminate
    /// asked of node A meanwhile is answered 200 and closes the user's connection on node B
    /// (a termination is a row of the database, never a queued message), at the latest once
    /// the database keeps up again.
    @Test func aTerminateReachesTheOtherNodeWhenTheAskedNodesQueueIsFull() async throws {
        try await ThrowawayPostgres.with { database in
            let cluster = ["CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret]
            var full = cluster
            full["CLEARANCE_BACKPLANE_URL"] = database.url + "?queue_limit=1"
            let metricsPort = try LoopbackPort.free()
            try await ServeCluster.withNode(environment: full, arguments: ["--metrics-port", "\(metricsPort)"]) { nodeA in
                try await ServeCluster.withNode(environment: cluster) { nodeB in
                    let alice = try await Self.signedIn(as: "alice", port: nodeB.port)
                    let psql = try ChildProcess.start(URL(fileURLWithPath: "/usr/bin/psql"), ["-X", "-q", "-v", "ON_ERROR_STOP=1", database.url])
                    try await withCleanup {
                        psql.write(Data("BEGIN;\nLOCK TABLE clearance_backplane_payloads IN ACCESS EXCLUSIVE MODE;\nSELECT 'table locked';\n".utf8))
                        guard await psql.line(timeout: .seconds(30), where: { $0.contains("table locked") }) != nil else {
                            throw ChildProcess.Failure("psql did not lock the payload table: \(psql.stderr)")
                        }
                        let data = String(repeating: "x", count: 9_000)
                        let batch = (0..<10).map { #"{"name":"lost","channel":"cache-news-\#($0)","data":"\#(data)"}"# }.joined(separator: ",")
                        #expect(try await nodeA.http.signed("POST", "/apps/\(TestHub.appID)/batch_events", body: #"{"batch":[\#(batch)]}"#).status == 200)
                        // One app: its part of the queue is the whole queue, so the overflow is logged as the app's.
                        try await eventually("node A's queue overflowed", timeout: .seconds(30)) {
                            nodeA.process.stderr.contains("backplane.queue.appFull") || nodeA.process.stderr.contains("backplane.queue.full")
                        }
                        // Counted under the app whose events were dropped.
                        let metrics = try await PrometheusScrape.scrape("http://127.0.0.1:\(metricsPort)/metrics")
                        #expect((metrics.value("clearance_backplane_dropped_total") ?? 0) > 0)
                        #expect((metrics.value("clearance_app_refused_total", ["app_id": TestHub.appID, "what": "backplane"]) ?? 0) > 0)
                        #expect(try await nodeA.http.signed("POST", "/apps/\(TestHub.appID)/users/alice/terminate_connections", body: "{}").status == 200)
                        psql.write(Data("COMMIT;\n".utf8))
                        psql.closeInput()
                        try await eventually("alice's connection on node B closed", timeout: .seconds(30)) { await alice.state.isTerminal }
                        guard case .failed(let error) = await alice.state else { throw ChildProcess.Failure("alice: \(await alice.state)") }
                        #expect(error.closeCode == 4009)
                    } cleanup: {
                        await psql.stop(.kill)
                    }
                }
            }
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
