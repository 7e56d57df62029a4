import Clearance
import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import ClearanceTestSupport
import Foundation
import Logging

/// The cluster transports a shared suite runs on: memory (``LoopbackCluster``) and a throwaway
/// PostgreSQL.
enum ClusterDriver: String, CaseIterable, Sendable, CustomStringConvertible {
    case loopback
    case postgres

    var description: String { rawValue }
}

/// Hubs in this process, each a node of one cluster: on a throwaway PostgreSQL, or in memory.
final class ClusterFixture: Sendable {
    let driver: ClusterDriver
    /// The database, for the PostgreSQL driver.
    let database: ThrowawayPostgres?
    let nodes: [HubServer]
    /// Each node's PostgreSQL transport, for the PostgreSQL driver.
    let states: [PostgresCluster]
    /// The cluster, for the in-memory driver.
    let loopback: LoopbackCluster?
    /// Each node's id in the cluster.
    let nodeIDs: [String]

    private init(
        driver: ClusterDriver, database: ThrowawayPostgres?, nodes: [HubServer], states: [PostgresCluster], loopback: LoopbackCluster?,
        nodeIDs: [String]
    ) {
        self.nodeIDs = nodeIDs
        self.driver = driver
        self.database = database
        self.nodes = nodes
        self.states = states
        self.loopback = loopback
    }

    /// Starts `count` hubs of `configuration` on `driver`, and returns once every hub is linked.
    static func start(_ driver: ClusterDriver = .postgres, nodes count: Int, configuration: HubConfiguration = TestHub.configuration()) async throws -> ClusterFixture {
        switch driver {
        case .loopback:
            let loopback = LoopbackCluster()
            var nodes: [HubServer] = []
            var ids: [String] = []
            do {
                for _ in 0..<count {
                    let drivers = loopback.join()
                    ids.append(drivers.transport.nodeID)
                    nodes.append(try await TestHub.start(configuration, cluster: drivers))
                }
                try await eventually("every node linked") { loopback.nodeIDs.count == count }
            } catch {
                for node in nodes { await node.stop() }
                throw error
            }
            return ClusterFixture(driver: driver, database: nil, nodes: nodes, states: [], loopback: loopback, nodeIDs: ids)
        case .postgres:
            let database = try await ThrowawayPostgres.start()
            var nodes: [HubServer] = []
            var states: [PostgresCluster] = []
            do {
                for _ in 0..<count {
                    let state = PostgresCluster(configuration: try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test), logger: TestHub.quietLogger)
                    nodes.append(try await TestHub.start(configuration, cluster: state.drivers))
                    states.append(state)
                }
                for state in states { try await linked(state) }
            } catch {
                for node in nodes { await node.stop() }
                await database.destroy()
                throw error
            }
            return ClusterFixture(driver: driver, database: database, nodes: nodes, states: states, loopback: nil, nodeIDs: states.map(\.nodeID))
        }
    }

    /// Waits until `state` is linked to the cluster.
    static func linked(_ state: PostgresCluster, timeout: Duration = .seconds(30)) async throws {
        _ = try await first(state.states, timeout: timeout) { $0 == .connected }
    }

    /// Runs `body` with a started cluster and tears it down afterwards, also when `body` throws.
    static func with<T>(
        _ driver: ClusterDriver = .postgres, nodes count: Int, configuration: HubConfiguration = TestHub.configuration(),
        _ body: (ClusterFixture) async throws -> T
    ) async throws -> T {
        let cluster = try await start(driver, nodes: count, configuration: configuration)
        return try await withCleanup { try await body(cluster) } cleanup: { await cluster.stop() }
    }

    /// Runs `body` with a started cluster whose app sends occupancy and member webhooks (batched
    /// every 0.1 s) to a Python receiver (the official library's `validate_webhook`).
    static func withWebhooks<T>(
        _ driver: ClusterDriver, nodes count: Int, _ body: (ClusterFixture, PythonWebhookReceiver) async throws -> T
    ) async throws -> T {
        let receiver = try await PythonWebhookReceiver.start()
        return try await withCleanup {
            let configuration = TestHub.configuration(limits: TestHub.limits { $0.webhooks.webhookBatchWindow = 0.1 }) { app in
                app.webhooks = [WebhookTarget(url: receiver.url, events: [.channelOccupied, .channelVacated, .memberAdded, .memberRemoved])]
            }
            return try await with(driver, nodes: count, configuration: configuration) { cluster in try await body(cluster, receiver) }
        } cleanup: {
            await receiver.stop()
        }
    }

    /// Returns once the cluster's occupancy holds `rows` places (a channel, or a presence member,
    /// on a node): what every node recorded so far has reached it. A node records a change just
    /// after it answered its client (a loaded node may be paused in between), the PostgreSQL
    /// driver by a task per node, a little later still (its table, read with psql).
    func occupancyRecorded(rows: Int, timeout: Duration = .seconds(15)) async throws {
        try await eventually("\(rows) places in the cluster's occupancy", timeout: timeout) {
            if let loopback { return loopback.occupancyPlaces == rows }
            return try await ClusterWebhookTests.count("SELECT count(*) FROM clearance_backplane_occupancy", database!) == rows
        }
    }

    func stop() async {
        for node in nodes { await node.stop() }
        await database?.destroy()
    }

    /// Cuts every node off from the others: the in-memory links, or the database (stopped,
    /// until every node has seen it go).
    func partition() async throws {
        if let loopback { return await loopback.partition() }
        try await database!.stopDatabase()
        for state in states {
            _ = try await first(state.states, timeout: .seconds(15)) { if case .unavailable = $0 { true } else { false } }
        }
    }

    /// Ends ``partition()``, and returns once every node is linked again.
    func heal() async throws {
        if let loopback { return await loopback.heal() }
        try await database!.startDatabase()
        for state in states { try await Self.linked(state, timeout: .seconds(40)) }
    }

    /// A connected client of node `index`, authorized as the user with `token`, subscribed to
    /// `channel`, and the channel (its member changes taken before the subscription completes).
    func client(ofNode index: Int, token: String, subscribedTo channel: String) async throws -> (ChannelClient, PusherChannel, AsyncStream<PresenceChange>) {
        let client = try await client(ofNode: index, token: token)
        let subscription = await client.subscribe(channel)
        let changes = subscription.members
        try await subscription.subscribed()
        return (client, subscription, changes)
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
