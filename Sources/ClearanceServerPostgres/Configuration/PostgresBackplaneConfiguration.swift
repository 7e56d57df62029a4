import Clearance
import ClearanceWire
import Foundation
import PostgresNIO

/// Where the nodes of a cluster meet, the key they share, and how often they check on each other.
///
/// ```swift
/// let configuration = try PostgresBackplaneConfiguration(
///     url: "postgres://clearance@db.internal:5432/clearance?sslmode=require",
///     clusterKey: BackplaneClusterKey(secret: clusterSecret))
/// let hub = HubService(configuration: hubConfiguration, cluster: PostgresCluster(configuration: configuration).drivers)
/// ```
///
/// Give the cluster a database of its own that no other role may connect to (`REVOKE CONNECT ON
/// DATABASE … FROM PUBLIC`): the cluster key keeps what nodes say to each other secret and
/// unforgeable, but a role that can connect can still flood the channel with noise.
public struct PostgresBackplaneConfiguration: Sendable, SecretRedacting {
    /// The database: host, port, user, password, database name, TLS.
    public var connection: PostgresConnection.Configuration
    /// The key every message between nodes is sealed with.
    public var clusterKey: BackplaneClusterKey
    /// The prefix of the backplane's NOTIFY channel and tables (`<namespace>_nodes`,
    /// `<namespace>_payloads`): clusters that share a database use different ones. Lower-case
    /// letters, digits and `_`, starting with a letter, at most 40 characters.
    public var namespace: String
    /// How often a node records that it is alive: more than 0, at most 5 minutes.
    public var heartbeatInterval: Duration
    /// A node silent this long (no heartbeat, no message) counts as gone: the others remove its
    /// members and subscriptions. At least twice ``heartbeatInterval``, at most 30 minutes (the
    /// database forgets nodes silent for an hour).
    public var nodeTimeout: Duration
    /// How long a node waits before it tries the database again after losing it: more than 0,
    /// at most 5 minutes.
    public var reconnectDelay: Duration
    /// The most messages a node keeps unsent (a database that does not keep up, or is away):
    /// past it the newest are dropped and logged (`backplane.queue.full`), and the node sends
    /// its whole state once it has caught up. 100,000 by default (about 5 MB for small events),
    /// 1 to 10,000,000. Terminations never go through it (they are rows of the database).
    public var queueLimit: Int

    /// A configuration from `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, with the
    /// optional query items `sslmode` (`disable`, the default, or `require`), `namespace`
    /// (default `clearance_backplane`) and `queue_limit` (``queueLimit``, default 100,000).
    /// Heartbeats every 5 s; a node silent for 15 s is gone.
    /// - Throws: ``PostgresBackplaneError/invalidURL(reason:)``.
    public init(url text: String, clusterKey: BackplaneClusterKey) throws(PostgresBackplaneError) {
        let url: PostgresURL
        do {
            url = try PostgresURL(text)
        } catch {
            throw .invalidURL(reason: error.reason)
        }
        var queueLimit = 100_000
        for (name, value) in url.items {
            switch name {
            case "queue_limit":
                guard let limit = Int(value) else { throw .invalidURL(reason: "queue_limit must be a whole number, not \(value).") }
                queueLimit = limit
            default:
                throw .invalidURL(reason: "unknown query item \(name) (sslmode, namespace and queue_limit are known).")
            }
        }
        try self.init(connection: url.connection, clusterKey: clusterKey, namespace: url.namespace, queueLimit: queueLimit)
    }

    /// A configuration from its parts.
    /// - Throws: ``PostgresBackplaneError/invalidSetting(_:)`` for an unusable namespace or timing.
    public init(
        connection: PostgresConnection.Configuration,
        clusterKey: BackplaneClusterKey,
        namespace: String = "clearance_backplane",
        heartbeatInterval: Duration = .seconds(5),
        nodeTimeout: Duration = .seconds(15),
        reconnectDelay: Duration = .seconds(1),
        queueLimit: Int = 100_000
    ) throws(PostgresBackplaneError) {
        self.connection = connection
        self.clusterKey = clusterKey
        self.namespace = namespace
        self.heartbeatInterval = heartbeatInterval
        self.nodeTimeout = nodeTimeout
        self.reconnectDelay = reconnectDelay
        self.queueLimit = queueLimit
        try validate()
    }

    /// Checks the namespace, the timings and the queue's limit.
    /// - Throws: ``PostgresBackplaneError/invalidSetting(_:)``.
    public func validate() throws(PostgresBackplaneError) {
        guard PostgresURL.isNamespace(namespace) else { throw .invalidSetting("namespace") }
        guard heartbeatInterval > .zero, heartbeatInterval <= .seconds(300) else { throw .invalidSetting("heartbeatInterval") }
        guard nodeTimeout >= heartbeatInterval * 2, nodeTimeout <= .seconds(1_800) else { throw .invalidSetting("nodeTimeout") }
        guard reconnectDelay > .zero, reconnectDelay <= .seconds(300) else { throw .invalidSetting("reconnectDelay") }
        guard (1...10_000_000).contains(queueLimit) else { throw .invalidSetting("queueLimit") }
    }

    /// Whether the database is reached over the network without TLS: its password and every
    /// sealed message then cross the network in the clear (a node warns at start).
    public var isUnprotectedRemoteDatabase: Bool {
        guard let host = connection.host, !connection.tls.isEnforced else { return false }
        let loopback = host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
        return !loopback
    }

    /// `postgres://USER@HOST:PORT/DATABASE (namespace …)`: never the password.
    public var description: String {
        PostgresURL.describe(connection, namespace: namespace)
    }
}
