import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// A cluster through the failures users meet: a node that dies without a word (a real
/// `clearance serve --backplane` killed with SIGKILL), and the database restarting.
@Suite("Cluster failures", .timeLimit(.minutes(3)))
struct ClusterFailureTests {
    @Test func aKilledNodesMembersAreRemovedFromTheOthersWithin30Seconds() async throws {
        try await ThrowawayPostgres.with { database in
            let state = PostgresCluster(configuration: try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test), logger: TestHub.quietLogger)
            let hub = try await TestHub.start(cluster: state.drivers)
            try await withCleanup {
                let port = try LoopbackPort.free()
                let configuration = try ServeProcess.writeConfiguration(port: port)
                defer { try? FileManager.default.removeItem(at: configuration) }
                // The URL through the environment, as a URL with a password would be given.
                let node = try await ServeProcess.start(
                    configuration: configuration, port: port,
                    environment: ["CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret])
                try await withCleanup {
                    #expect(await node.process.line(timeout: .seconds(30)) { $0.hasPrefix("backplane connected node=") } != nil, "\(node.process.stderr)")
                    try await ClusterFixture.linked(state)

                    let alice = ChannelClient(key: TestHub.key, options: TestHub.options(hub.port, authorizer: try TestHub.serverAuthorizer(hub, token: TestHub.alice.token)))
                    let bob = ChannelClient(key: TestHub.key, options: TestHub.options(port, authorizer: try TestHub.serverAuthorizer(node.httpURL, token: TestHub.bob.token)))
                    await alice.connect()
                    await bob.connect()
                    let aliceRoom = await alice.subscribe("presence-room")
                    let changes = aliceRoom.members
                    try await aliceRoom.subscribed()
                    try await (await bob.subscribe("presence-room")).subscribed()
                    _ = try await first(changes, timeout: .seconds(15)) { $0 == .added(PresenceMember(id: "bob", infoJSON: #"{"name":"Bob"}"#)) }
                    #expect(try await TestHub.users(hub, channel: "presence-room") == ["alice", "bob"])

                    await node.stop(.kill)
                    let killed = ContinuousClock.now
                    _ = try await first(changes, timeout: .seconds(40)) { $0 == .removed(PresenceMember(id: "bob", infoJSON: #"{"name":"Bob"}"#)) }
                    let gone = ContinuousClock.now - killed
                    #expect(gone <= .seconds(30), "bob was removed \(gone) after his node died")
                    #expect(try await TestHub.users(hub, channel: "presence-room") == ["alice"])
                    let channel = try await TestHTTP(hub).signed("GET", "/apps/\(TestHub.appID)/channels/presence-room", query: ["info": "subscription_count"]).json
                    #expect(channel["subscription_count"] as? Int == 1)
                    await bob.disconnect()
                    await alice.disconnect()
                } cleanup: {
                    await node.stop(.kill)
                }
            } cleanup: {
                await hub.stop()
            }
        }
    }

    @Test func afterTheDatabaseRestartsDeliveryAcrossNodesResumesWithin30Seconds() async throws {
        try await ClusterFixture.with(nodes: 2) { cluster in
            let alice = try await cluster.client(ofNode: 0, token: TestHub.alice.token)
            let bob = try await cluster.client(ofNode: 1, token: TestHub.bob.token)
            let aliceRoom = await alice.subscribe("presence-room")
            let bobRoom = await bob.subscribe("presence-room")
            let bobNews = await bob.subscribe("news")
            for channel in [aliceRoom, bobRoom, bobNews] { try await channel.subscribed() }
            let bobChanges = bobRoom.members
            let news = EventLog(bobNews, event: "headline")
            let nodeA = TestHTTP(cluster.nodes[0])
            try await retrying("an event from node 0 at node 1", every: .milliseconds(100), timeout: .seconds(15)) {
                try await TestHub.trigger(nodeA, event: "headline", channels: ["news"], data: #"{"n":0}"#)
            } until: {
                news.count > 0
            }

            try await cluster.database!.stopDatabase()
            for state in cluster.states {
                _ = try await first(state.states, timeout: .seconds(15)) { if case .unavailable = $0 { true } else { false } }
            }
            // sleep: the outage lasts a while on purpose (both links keep failing to reconnect meanwhile).
            try await Task.sleep(for: .seconds(2))
            try await cluster.database!.startDatabase()
            let back = ContinuousClock.now
            let before = news.count
            try await retrying("an event from node 0 at node 1 again", timeout: .seconds(40)) {
                try? await TestHub.trigger(nodeA, event: "headline", channels: ["news"], data: #"{"n":1}"#)
            } until: {
                news.count > before
            }
            let resumed = ContinuousClock.now - back
            #expect(resumed <= .seconds(30), "cross-node delivery resumed \(resumed) after the database came back")
            // The hubs were not restarted, and nobody was reported gone meanwhile.
            #expect(try await TestHub.users(TestHTTP(cluster.nodes[1]), channel: "presence-room") == ["alice", "bob"])
            let sawRemoval = try? await first(bobChanges, timeout: .milliseconds(200)) { if case .removed = $0 { true } else { false } }
            #expect(sawRemoval == nil)
            await alice.disconnect()
            await bob.disconnect()
        }
    }

    @Test func serveRefusesAnUnusableBackplaneURL() async throws {
        let key = ["CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret]
        let output = try await ClearanceExecutable.run(["serve", "--port", "0", "--backplane", "mysql://root@127.0.0.1/db"], environment: key)
        #expect(output.status != 0)
        #expect(output.stderr.contains("scheme must be postgres"))
        let withPassword = try await ClearanceExecutable.run(["serve", "--port", "0", "--backplane", "postgres://user:hunter2@127.0.0.1"], environment: key)
        #expect(withPassword.status != 0)
        #expect(withPassword.stderr.contains("one database"))
        #expect(!withPassword.stderr.contains("hunter2"))
        #expect(withPassword.stderr.contains("warning: --backplane puts the secret on the command line"))
        #expect(!output.stderr.contains("warning:"), "a URL without a password is no secret")
    }

    @Test func serveTakesABackplaneURLWithAPasswordFromStandardInputAFileOrTheEnvironment() async throws {
        let url = "postgres://user:hunter2@127.0.0.1"  // no database: refused before connecting
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("backplane-url")
        try Data("\(url)\n".utf8).write(to: file)
        let key = ["CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret]
        let runs = [
            try await ClearanceExecutable.run(["serve", "--port", "0", "--backplane", "-"], input: url + "\n", environment: key),
            try await ClearanceExecutable.run(["serve", "--port", "0", "--backplane-file", file.path], environment: key),
            try await ClearanceExecutable.run(["serve", "--port", "0"], environment: key.merging(["CLEARANCE_BACKPLANE_URL": url]) { $1 }),
        ]
        for output in runs {
            #expect(output.status != 0)
            #expect(output.stderr.contains("one database"), "the URL was read and checked: \(output.stderr)")
            #expect(!output.stderr.contains("hunter2"))
            #expect(!output.stderr.contains("warning:"))
        }
        let both = try await ClearanceExecutable.run(["serve", "--port", "0", "--secret", "-", "--backplane", "-"], input: url)
        #expect(both.status != 0)
        #expect(both.stderr.contains("Only one of --secret, --backplane can come from standard input."), "\(both.stderr)")
        let twice = try await ClearanceExecutable.run(["serve", "--port", "0", "--backplane", url, "--backplane-file", file.path])
        #expect(twice.status != 0)
        #expect(twice.stderr.contains("Give --backplane or --backplane-file, not both."))
        #expect(!twice.stderr.contains("hunter2"))
    }
}
