import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceTestSupport
import Foundation
import Logging

/// A throwaway PostgreSQL and hubs in this process, each a node of one cluster on it.
final class ClusterFixture: Sendable {
    let database: ThrowawayPostgres
    let nodes: [HubServer]
    let states: [PostgresChannelState]

    private init(database: ThrowawayPostgres, nodes: [HubServer], states: [PostgresChannelState]) {
        self.database = database
        self.nodes = nodes
        self.states = states
    }

    /// Starts the database and `count` hubs, and returns once every hub is linked.
    static func start(nodes count: Int) async throws -> ClusterFixture {
        let database = try await ThrowawayPostgres.start()
        var nodes: [HubServer] = []
        var states: [PostgresChannelState] = []
        do {
            for _ in 0..<count {
                let state = PostgresChannelState(configuration: try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test), logger: TestHub.quietLogger)
                nodes.append(try await TestHub.start(adapter: state))
                states.append(state)
            }
            for state in states { try await linked(state) }
        } catch {
            for node in nodes { await node.stop() }
            await database.destroy()
            throw error
        }
        return ClusterFixture(database: database, nodes: nodes, states: states)
    }

    /// Waits until `state` is linked to the cluster.
    static func linked(_ state: PostgresChannelState, timeout: Duration = .seconds(30)) async throws {
        _ = try await first(state.states, timeout: timeout) { $0 == .connected }
    }

    /// Runs `body` with a started cluster and tears it down afterwards, also when `body` throws.
    static func with<T>(nodes count: Int, _ body: (ClusterFixture) async throws -> T) async throws -> T {
        let cluster = try await start(nodes: count)
        return try await withCleanup { try await body(cluster) } cleanup: { await cluster.stop() }
    }

    func stop() async {
        for node in nodes { await node.stop() }
        await database.destroy()
    }

    /// A connected client of node `index`, authorized as the user with `token`.
    func client(ofNode index: Int, token: String) async throws -> ChannelClient {
        let client = ChannelClient(key: TestHub.key, options: TestHub.options(
            nodes[index].port, authorizer: try TestHub.serverAuthorizer(nodes[index], token: token)))
        await client.connect()
        _ = try await client.connected()
        return client
    }
}

/// Events gathered from a channel as they come, to count them later.
final class EventLog: Sendable {
    private let events = Locked<[ChannelEvent]>([])
    private let task: Task<Void, Never>

    init(_ channel: PusherChannel, event name: String) {
        let events = events
        let stream = channel.bind(event: name)
        task = Task { for await event in stream { events.withLock { $0.append(event) } } }
    }

    var all: [ChannelEvent] { events.withLock { $0 } }
    var count: Int { events.withLock { $0.count } }

    deinit { task.cancel() }
}
