import Clearance
import ClearanceServer
import Foundation
import Logging

/// Decides `channel_occupied` and `channel_vacated`, `member_added` and `member_removed` for the
/// whole cluster: each node records, in the occupancy table, the channels it has subscribers of
/// and the presence members it has connections of (one transaction per change, under an
/// advisory lock per channel or member); the first row of a channel is its `channel_occupied`
/// (of a member, its `member_added`), the last row gone its `channel_vacated` (`member_removed`),
/// whichever node removes it, including a node that removes the rows of one that died (every
/// ``sweepInterval`` each node removes the rows of nodes without a recent heartbeat; two nodes
/// doing so at once remove each row once).
///
/// The node's changes are applied in order by one task; while the database is away they wait
/// (at most ``limit``, then the oldest are dropped and logged).
final class PostgresOccupancy: ClusterOccupancy {
    typealias Change = ChannelOccupancyChange

    static let limit = 100_000

    private let connection: BackplaneConnection
    private let seal: BackplaneSeal
    private let key: BackplaneClusterKey
    private let node: String
    private let configuration: PostgresBackplaneConfiguration
    private let logger: Logger
    private let pending = PendingWrites<Change>(limit: PostgresOccupancy.limit)
    private let emitter = Locked<(any WebhookEmitter)?>(nil)
    /// The hub's clock (``use(clock:)``), which times the sweeps and stamps the seals; the
    /// machine's until the cluster runs for a hub.
    private let clock = Locked<any HubClock>(SystemHubClock())

    init(configuration: PostgresBackplaneConfiguration, node: String, logger: Logger) {
        connection = BackplaneConnection(configuration: configuration, id: 4, logger: logger)
        seal = BackplaneSeal(key: configuration.clusterKey, namespace: configuration.namespace)
        key = configuration.clusterKey
        self.node = node
        self.configuration = configuration
        self.logger = logger
    }

    var sweepInterval: Duration { configuration.heartbeatInterval }

    /// Times the sweeps and stamps the seals on `clock`, the hub's (``PostgresCluster`` hands it
    /// over with the hub's inbox). The pace at which the queue is looked at stays the machine's.
    func use(clock: any HubClock) {
        self.clock.withLock { $0 = clock }
    }

    /// Queues a change of this node's share (never waits).
    func record(_ change: Change) {
        let overflowing = pending.append(change)
        if overflowing { logger.warning("backplane.occupancy.full", metadata: ["limit": "\(Self.limit)"]) }
    }

    /// Applies the changes in order and sweeps dead nodes' rows, emitting through `webhooks`,
    /// until ``stop(timeout:)``.
    func run(emitting webhooks: any WebhookEmitter) async {
        emitter.withLock { $0 = webhooks }
        var swept: ContinuousClock.Instant?
        while !pending.isStopped, !Task.isCancelled {
            let change = pending.first
            do {
                if let change {
                    try await apply(change)
                    pending.removeFirst()
                }
                let now = clock.withLock { $0.now }
                if swept.map({ now - $0 >= sweepInterval }) ?? true {
                    try await sweep()
                    swept = now
                }
            } catch {
                logger.notice("backplane.occupancy.unavailable", metadata: ["reason": "\(BackplaneLink.describe(error))"])
                try? await Task.sleep(for: configuration.reconnectDelay)
                continue
            }
            // Idle: look again soon (a change waits at most this long to be applied).
            if change == nil { try? await Task.sleep(for: .milliseconds(20)) }
        }
    }

    /// Ends ``run(emitting:)`` once the changes queued are applied (at most `timeout`). A node that stops
    /// gracefully has closed its connections first, so its vacated channels are among them.
    func stop(timeout: Duration) async {
        await pending.stop(closing: connection, within: timeout)
    }

    /// Records the change in the occupancy table: a row per place (a channel, or a presence
    /// member: its app, channel and user, as the HMAC of the cluster key names it) and node.
    private func apply(_ change: Change) async throws {
        let (node, logger) = (node, logger)
        let (appID, channel, userID) = change.place
        let body = [appID, channel] + (userID.map { [$0] } ?? [])
        let placeKey = key.name(body.joined(separator: "\n"))
        if change.isGain {
            let sealed = seal.seal(body.joined(separator: "\n"), node: "occupancy", sequence: 0, sentAt: clock.withLock { $0.date }, carrier: .webhook)
            let first = try await connection.run { schema, connection in
                try await schema.heartbeat(node: node, on: connection, logger: logger)
                return try await schema.occupy(channelKey: placeKey, sealed: sealed, node: node, on: connection, logger: logger)
            }
            if first { emit(appID, change.event) }
        } else {
            let last = try await connection.run { schema, connection in
                try await schema.vacate(channelKey: placeKey, node: node, on: connection, logger: logger)
            }
            if last { emit(appID, change.event) }
        }
    }

    /// Removes the rows of nodes without a heartbeat within the node timeout (not this node's):
    /// their members that no other node has are removed, then their channels that no other node
    /// has are vacated.
    private func sweep() async throws {
        let (node, logger, timeout) = (node, logger, configuration.nodeTimeout)
        let vacated = try await connection.run { schema, connection -> [String] in
            let live = try await schema.liveNodes(within: timeout, on: connection, logger: logger)
            var vacated: [String] = []
            for dead in try await schema.occupyingNodes(on: connection, logger: logger).subtracting(live).subtracting([node]).sorted() {
                logger.info("backplane.occupancy.forget", metadata: ["node": "\(dead)"])
                vacated += try await schema.forgetOccupancy(of: dead, on: connection, logger: logger)
            }
            return vacated
        }
        let losses = vacated.compactMap { sealed -> Change? in
            guard let envelope = try? seal.open(sealed, node: "occupancy", carrier: .webhook) else { return nil }
            let parts = envelope.body.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 2 else { return nil }
            return .loss(appID: parts[0], channel: parts[1], userID: parts.count == 3 ? parts[2] : nil)
        }
        for loss in losses.filter({ $0.place.userID != nil }) + losses.filter({ $0.place.userID == nil }) {
            emit(loss.place.appID, loss.event)
        }
    }

    private func emit(_ appID: String, _ event: WebhookEvent) {
        emitter.withLock { $0 }?.emit(appID: appID, event)
    }
}
