import Clearance
import ClearanceServer
import ClearanceSigning
import Foundation
import Logging

/// A node of a cluster of hubs that share PostgreSQL: run one hub per node, each with its own
/// `PostgresCluster` on the same database, behind a load balancer. It is the cluster's
/// `ClusterTransport` (notifications, sealed), and its ``drivers`` add the database's
/// `ClusterOccupancy` and webhook queue (``PostgresWebhookQueue``).
///
/// ```swift
/// let key = try BackplaneClusterKey(secret: clusterSecret)  // the same on every node
/// let node = PostgresCluster(configuration: try PostgresBackplaneConfiguration(url: "postgres://clearance@db:5432/clearance", clusterKey: key))
/// let hub = HubService(configuration: configuration, cluster: node.drivers)
/// ```
///
/// What the cluster guarantees (soketi's horizontal adapter, on PostgreSQL):
/// - an event published through any node's HTTP API reaches the channel's subscribers on every
///   node once; a client event reaches the other nodes' subscribers, never its sender;
/// - presence spans the nodes: `subscription_succeeded` lists every node's members,
///   `member_added`/`member_removed` are told on every node (once per user, not per
///   connection), and the channel API's counts, `user_count` and users list add up every node;
/// - a node that stops says goodbye and its members leave at once; a node that dies without a
///   word stops its heartbeats, and the others remove its members within
///   ``PostgresBackplaneConfiguration/nodeTimeout`` plus a heartbeat interval (20 s by default);
///   a node that was only slow (its heartbeats stalled that long) is asked for its whole state
///   once it is heard from or beats again, so its members and counts come back;
/// - a node that loses the database keeps serving its own connections, reconnects every
///   ``PostgresBackplaneConfiguration/reconnectDelay``, and then exchanges its whole state with
///   the others again; events published while the link was down do not cross (as with Redis
///   pub/sub);
/// - a node whose unsent messages overflow (a database that does not keep up: more than
///   ``PostgresBackplaneConfiguration/queueLimit`` queued, 100,000 by default) drops the newest and
///   logs `backplane.queue.full`; once it has caught up it
///   sends its whole state again (`backplane.resync`), so the others' counts and rosters heal
///   without a reconnect (the dropped events are lost);
/// - a channel's history (connection recovery, an app's `history`) is kept in the database: each
///   event numbered once for the cluster and committed before any node delivers it or the HTTP API
///   answers 200, so a client resumes on any node, also after the one it left was killed;
/// - an app's backend may publish from inside its own transaction (`clearance_publish(…)`): the
///   event is delivered once it commits, never when it rolls back, each channel's in commit order;
/// - a `terminate_connections` is a row of the database for its grace period, which every node
///   reads, also one that was away or whose queue was full;
/// - notifications carry events up to PostgreSQL's NOTIFY limit (8,000 bytes); longer payloads go
///   through a table, the notification carrying their id;
/// - every notification and stored payload is sealed with the cluster key (ChaChaPoly, the key
///   derived with HKDF from ``PostgresBackplaneConfiguration/clusterKey``; the namespace, the
///   sending node and a sequence number bound to it): a database role without the key reads
///   nothing of it, and what it forges or replays is dropped, logged
///   (`backplane.message.rejected`) and never applied.
public final class PostgresCluster: ClusterTransport {
    /// This node's id in the cluster (new for every process).
    public let nodeID: String
    /// The database and timings.
    public let configuration: PostgresBackplaneConfiguration
    private let logger: Logger
    let queue: BackplaneQueue
    private let link: BackplaneLink
    let occupancy: PostgresOccupancy
    /// The cluster's terminations, kept in the database for their grace period.
    let clusterTerminations: ClusterTerminations
    /// Where the terminations read from the database go: the hub's inbox, once it runs.
    private let inbox: Locked<ClusterInbox?>
    private let webhookQueues = Locked([PostgresWebhookQueue]())
    /// The channels' histories (connection recovery), in the database.
    let history: PostgresHistory
    /// The events apps publish from their transactions (`clearance_publish`).
    let outbox: PostgresOutbox

    /// Messages this node dropped because its queue of unsent messages was full, in all, and
    /// each app's events dropped at the app's part of the queue (`clearance serve` exports them:
    /// `clearance_backplane_dropped_total`, `clearance_app_refused_total{app_id,what="backplane"}`).
    public var droppedMessages: HubMetrics.BackplaneDrops {
        let drops = queue.drops
        return HubMetrics.BackplaneDrops(total: drops.total, byApp: drops.byApp)
    }

    /// A node of the cluster that `configuration` names. Nothing happens until the hub runs it.
    ///
    /// Its queue of unsent messages (`configuration.queueLimit`, 100,000 by default) gives each
    /// app's events at most its part (`appShare` of `limits` when the hub serves `apps` apps, as
    /// it starts).
    public convenience init(
        configuration: PostgresBackplaneConfiguration, logger: Logger = Logger(label: "clearance.backplane"),
        limits: HubLimits = HubLimits(), apps: Int = 1
    ) {
        let queueLimit = configuration.queueLimit
        self.init(configuration: configuration, queueLimit: queueLimit, perAppLimit: limits.appPart(of: queueLimit, apps: apps), logger: logger)
    }

    /// A node whose queue of unsent messages holds at most `queueLimit`, `perAppLimit` of one
    /// app's events (tests use small ones).
    init(configuration: PostgresBackplaneConfiguration, queueLimit: Int, perAppLimit: Int? = nil, logger: Logger) {
        let nodeID = UUID().uuidString.lowercased()
        let queue = BackplaneQueue(limit: queueLimit, perAppLimit: perAppLimit, logger: logger)
        self.nodeID = nodeID
        self.configuration = configuration
        self.logger = logger
        self.queue = queue
        link = BackplaneLink(configuration: configuration, nodeID: nodeID, queue: queue, logger: logger)
        occupancy = PostgresOccupancy(configuration: configuration, node: nodeID, logger: logger)
        history = PostgresHistory(configuration: configuration, logger: logger)
        outbox = PostgresOutbox(configuration: configuration, logger: logger) { [queue] timeout in await queue.sentAll(within: timeout) }
        let inbox = Locked<ClusterInbox?>(nil)
        self.inbox = inbox
        clusterTerminations = ClusterTerminations(configuration: configuration, node: nodeID, logger: logger) { termination in
            guard let inbox = inbox.withLock({ $0 }) else { return }
            Task { await inbox.receive([.terminate(termination)], from: "terminations") }
        }
    }

    /// What a hub needs to be this node: this transport, the database's occupancy, channel
    /// histories (connection recovery) and webhook queue (``PostgresWebhookQueue``).
    public var drivers: ClusterDrivers {
        ClusterDrivers(transport: self, occupancy: occupancy, history: history, outbox: outbox) { [self] limits in
            let queue = PostgresWebhookQueue(configuration: configuration, node: nodeID, limits: limits, logger: logger)
            webhookQueues.withLock { $0.append(queue) }
            return queue
        }
    }

    /// The link's state, starting with the current one.
    public var states: AsyncStream<BackplaneState> { link.states.subscribe() }

    /// Messages from other nodes dropped because they did not open with the cluster key or were
    /// seen before (forgeries, replays, a node with another key).
    public var rejectedMessages: Int { link.rejectedMessages }

    /// Keeps the link to the other nodes up, and reads the cluster's terminations, until
    /// ``shutdown(farewell:)``; the hub calls it.
    public func run(inbox: ClusterInbox) async {
        self.inbox.withLock { $0 = inbox }
        // The inbox holds the hub's channel state, which holds these drivers: let it go when
        // the link ends, or the two would keep each other (and the hub's state) alive for good.
        defer { self.inbox.withLock { $0 = nil } }
        let clusterTerminations = clusterTerminations
        occupancy.use(clock: inbox.clock)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await clusterTerminations.run(clock: inbox.clock) }
            await link.run(for: inbox)
            await clusterTerminations.stop(timeout: .zero)
        }
    }

    /// Queues `messages` for the other nodes; a termination is written to the database instead,
    /// where every node reads it for its grace period.
    public func publish(_ messages: [ClusterMessage]) {
        guard messages.contains(where: { $0.termination != nil }) else { return queue.append(messages) }
        for termination in messages.compactMap(\.termination) { clusterTerminations.record(termination) }
        queue.append(messages.filter { $0.termination == nil })
    }

    /// Writes the last terminations (at most 3 s), says goodbye (the other nodes drop this
    /// node's members at once) and ends ``run(inbox:)``.
    public func shutdown(farewell: [ClusterMessage]) async {
        await clusterTerminations.stop(timeout: .seconds(3))
        await link.stop(farewell: farewell)
        await history.close()
        for queue in webhookQueues.withLock({ $0 }) { await queue.close() }
    }
}
