import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// A cluster whose database another role can reach: two real `clearance serve --backplane`
/// (nodes A and B), and a second PostgreSQL role, `intruder`, that can connect, `LISTEN` and
/// `pg_notify` but has no cluster key.
@Suite("A sealed backplane", .timeLimit(.minutes(3)))
struct SealedBackplaneTests {
    /// The issue's reproduction: any role that can connect could `pg_notify` a forged event into a
    /// private channel on every node, or a forged `member_added`, and `LISTEN` read private
    /// channels' data. Now it reads ciphertext only, and what it forges or replays is dropped.
    @Test func anotherRoleReadsOnlyCiphertextAndWhatItForgesOrReplaysNeverReachesASubscriber() async throws {
        try await ThrowawayPostgres.with { database in
            try await Self.sql("CREATE ROLE intruder LOGIN", as: "postgres", database)
            let cluster = ["CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret]
            try await ServeProcess.with(limits: TestHub.limits(), environment: cluster) { nodeB in
                let linkedB = await nodeB.process.line(timeout: .seconds(30)) { $0.hasPrefix("backplane connected node=") }
                let nodeBID = try #require(linkedB?.split(separator: " ").first { $0.hasPrefix("node=") }?.dropFirst(5)).description
                try await ServeProcess.with(limits: TestHub.limits(), environment: cluster) { nodeA in
                    #expect(await nodeA.process.line(timeout: .seconds(30)) { $0.hasPrefix("backplane connected node=") } != nil, "\(nodeA.process.stderr)")
                    let intruder = try await Self.connect(as: "intruder", database)
                    try await withCleanup {
                        let captured = Captured()
                        let listening = Task {
                            try await intruder.listen(on: "clearance_backplane") { notifications in
                                for try await notification in notifications { captured.append(notification.payload) }
                            }
                        }
                        defer { listening.cancel() }

                        // Alice on node A, in a private and a presence channel; Bob on node B.
                        let alice = ChannelClient(key: TestHub.key, options: TestHub.options(
                            nodeA.port, authorizer: try TestHub.serverAuthorizer(nodeA.httpURL, token: TestHub.alice.token)))
                        let bob = ChannelClient(key: TestHub.key, options: TestHub.options(
                            nodeB.port, authorizer: try TestHub.serverAuthorizer(nodeB.httpURL, token: TestHub.bob.token)))
                        await alice.connect()
                        await bob.connect()
                        let secret = await alice.subscribe("private-secret")
                        let room = await alice.subscribe("presence-room")
                        let members = room.members
                        try await secret.subscribed()
                        try await room.subscribed()
                        try await (await bob.subscribe("private-secret")).subscribed()
                        let received = EventLog(secret, event: "classified")
                        let forged = EventLog(secret, event: "forged")
                        let markers = EventLog(secret, event: "marker")
                        let nodeBHTTP = nodeB.http

                        // A genuine event crosses from node B to node A, sealed.
                        try await retrying("node B knows node A's subscriber", timeout: .seconds(15)) {
                            try await TestHub.trigger(nodeBHTTP, event: "classified", channels: ["private-secret"], data: "the-launch-codes")
                        } until: {
                            received.count > 0
                        }
                        // Whatever crossed until now, counted once every delivery is in.
                        try await TestHub.trigger(nodeBHTTP, event: "marker", channels: ["private-secret"], data: "before")
                        try await eventually("the first marker") { markers.count == 1 }
                        let genuineCount = received.count
                        try await eventually("the intruder saw notifications") { captured.all.count >= 2 }
                        for text in captured.all {
                            for clear in ["the-launch-codes", "private-secret", "presence-room", "classified"] {
                                #expect(!text.contains(clear), "the intruder read \(clear) in \(text.prefix(200))")
                            }
                        }

                        // Forgeries: the old plaintext format, and text that only looks sealed,
                        // as node B and as a node nobody knows.
                        let event = #"{"k":"event","a":"\#(TestHub.appID)","c":"private-secret","f":"{\"event\":\"forged\",\"channel\":\"private-secret\",\"data\":\"x\"}"}"#
                        let join = #"{"k":"join","a":"\#(TestHub.appID)","c":"presence-room","u":"mallory","i":"{\"name\":\"Mallory\"}"}"#
                        for node in [nodeBID, UUID().uuidString.lowercased()] {
                            for forgery in ["\(node)\n\(event)", "\(node)\n\(join)", "\(node)\n\(event)\n\(join)",
                                            "\(node)\n\(Data(event.utf8).base64EncodedString())"] {
                                try await Self.notify(forgery, on: intruder)
                            }
                        }
                        // Replays: every genuine notification, sent again.
                        let genuine = captured.all
                        for text in genuine { try await Self.notify(text, on: intruder) }

                        // A marker after them: node A handles notifications in order.
                        try await TestHub.trigger(nodeBHTTP, event: "marker", channels: ["private-secret"], data: "after")
                        try await eventually("the second marker") { markers.count == 2 }
                        #expect(forged.count == 0, "a forged event reached a subscriber")
                        #expect(received.count == genuineCount, "a replayed event reached a subscriber again (\(received.count) for \(genuineCount))")
                        let mallory = try? await first(members, timeout: .milliseconds(500)) { change in
                            if case let .added(member) = change { member.id == "mallory" } else { false }
                        }
                        #expect(mallory == nil, "a forged member_added reached a subscriber")
                        #expect(try await TestHub.users(TestHTTP(baseURL: nodeA.httpURL), channel: "presence-room") == ["alice"])
                        try await eventually("node A logged the rejections") { nodeA.process.stderr.contains("backplane.message.rejected") }
                        try await eventually("node B dropped what it could not open too") { nodeB.process.stderr.contains("backplane.message.rejected") }
                        await alice.disconnect()
                        await bob.disconnect()
                    } cleanup: {
                        try? await intruder.close()
                    }
                }
            }
        }
    }

    @Test func serveRefusesABackplaneWithoutAClusterKeyAndSaysHowToMakeOne() async throws {
        let output = try await ClearanceExecutable.run(["serve", "--port", "0", "--backplane", "postgres://clearance@127.0.0.1/hubs"])
        #expect(output.status != 0)
        #expect(output.stderr.contains("--backplane needs a cluster key"), "\(output.stderr)")
        #expect(output.stderr.contains("openssl rand -base64 48"))
        let short = try await ClearanceExecutable.run(
            ["serve", "--port", "0", "--backplane", "postgres://clearance@127.0.0.1/hubs", "--cluster-key", "-"], input: "too-short\n")
        #expect(short.status != 0)
        #expect(short.stderr.contains("at least 32 characters"), "\(short.stderr)")
        #expect(!short.stderr.contains("too-short"))
        let alone = try await ClearanceExecutable.run(["serve", "--port", "0", "--cluster-key", "-"], input: BackplaneClusterKey.testSecret)
        #expect(alone.status != 0)
        #expect(alone.stderr.contains("give --backplane too"), "\(alone.stderr)")
    }

    @Test func serveWarnsWhenARemoteDatabaseIsReachedWithoutTLS() async throws {
        // 192.0.2.0/24 is TEST-NET-1: never routed, so the node never links; the warning comes first.
        try await ServeProcess.with(limits: TestHub.limits(), environment: [
            "CLEARANCE_BACKPLANE_URL": "postgres://clearance@192.0.2.1:5432/hubs", "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret,
        ]) { node in
            // The whole line: a pipe's read may end inside it.
            try await eventually("the TLS warning, saying what to add") {
                node.process.stderr.split(separator: "\n").contains { $0.contains("backplane.tls.off") && $0.contains("sslmode=require") }
            }
        }
    }

    // MARK: - Helpers

    /// Notifications as the intruder received them.
    final class Captured: Sendable {
        private let texts = Locked<[String]>([])
        func append(_ text: String) { texts.withLock { $0.append(text) } }
        var all: [String] { texts.withLock { $0 } }
    }

    static func connect(as user: String, _ database: ThrowawayPostgres) async throws -> PostgresConnection {
        let configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: database.port, username: user, password: nil, database: "postgres", tls: .disable)
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: TestHub.quietLogger)
    }

    static func sql(_ text: String, as user: String, _ database: ThrowawayPostgres) async throws {
        let connection = try await connect(as: user, database)
        try await withCleanup {
            _ = try await connection.query(PostgresQuery(unsafeSQL: text), logger: TestHub.quietLogger)
        } cleanup: {
            try? await connection.close()
        }
    }

    static func notify(_ text: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query("SELECT pg_notify('clearance_backplane', \(text))", logger: TestHub.quietLogger)
    }
}
