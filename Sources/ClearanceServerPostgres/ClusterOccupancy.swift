import Clearance
import ClearanceServer
import Foundation
import Logging

/// Decides `channel_occupied` and `channel_vacated` for the whole cluster: each node records, in
/// the occupancy table, the channels it has subscribers of (one transaction per change, under an
/// advisory lock per channel); the first row of a channel is its `channel_occupied`, the last
/// row gone its `channel_vacated`, whichever node removes it, including a node that removes the
/// rows of one that died (every ``sweepInterval`` each node removes the rows of nodes without a
/// recent heartbeat; two nodes doing so at once remove each row once).
///
/// The node's changes are applied in order by one task; while the database is away they wait
/// (at most ``limit``, then the oldest are dropped and logged).
final class ClusterOccupancy: Sendable {
    enum Change: Sendable {
        case occupied(appID: String, channel: String)
        case vacated(appID: String, channel: String)
    }

    static let limit = 100_000

    private let connection: BackplaneConnection
    private let seal: BackplaneSeal
    private let key: BackplaneClusterKey
    private let node: String
    private let configuration: PostgresBackplaneConfiguration
    private let logger: Logger
    private let pending = Locked((changes: [Change](), stopped: false))
    private let emitter = Locked<(any WebhookEmitter)?>(nil)

    init(configuration: PostgresBackplaneConfiguration, node: String, logger: Logger) {
        connection = BackplaneConnection(configuration: configuration, id: 4, logger: logger)
        seal = BackplaneSeal(key: configuration.clusterKey, namespace: configuration.namespace)
        key = configuration.clusterKey
        self.node = node
        self.configuration = configuration
        self.logger = logger
    }

    var sweepInterval: Duration { configuration.heartbeatInterval }

    func attach(_ emitter: any WebhookEmitter) {
        self.emitter.withLock { $0 = emitter }
    }

    /// Queues a change of this node's share (never waits).
    func record(_ change: Change) {
        let overflowing = pending.withLock { state -> Bool in
            state.changes.append(change)
            guard state.changes.count > Self.limit else { return false }
            state.changes.removeFirst(state.changes.count - Self.limit)
            return true
        }
        if overflowing { logger.warning("backplane.occupancy.full", metadata: ["limit": "\(Self.limit)"]) }
    }

    /// Applies the changes in order and sweeps dead nodes' rows, until ``stop()``.
    func run() async {
        var swept = ContinuousClock.now - sweepInterval
        while !pending.withLock({ $0.stopped }), !Task.isCancelled {
            let change = pending.withLock { $0.changes.first }
            do {
                if let change {
                    try await apply(change)
                    pending.withLock { _ = $0.changes.removeFirst() }
                }
                if ContinuousClock.now - swept >= sweepInterval {
                    try await sweep()
                    swept = .now
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

    /// Ends ``run()`` once the changes queued are applied (at most `timeout`). A node that stops
    /// gracefully has closed its connections first, so its vacated channels are among them.
    func stop(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while pending.withLock({ !$0.changes.isEmpty }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        pending.withLock { $0.stopped = true }
        await connection.close()
    }

    private func apply(_ change: Change) async throws {
        let (node, logger) = (node, logger)
        switch change {
        case let .occupied(appID, channel):
            let channelKey = key.name("\(appID)\n\(channel)")
            let sealed = seal.seal("\(appID)\n\(channel)", node: "occupancy", sequence: 0, sentAt: Date(), carrier: .webhook)
            let first = try await connection.run { schema, connection in
                try await schema.heartbeat(node: node, on: connection, logger: logger)
                return try await schema.occupy(channelKey: channelKey, sealed: sealed, node: node, on: connection, logger: logger)
            }
            if first { emit(appID, .channelOccupied(channel: channel)) }
        case let .vacated(appID, channel):
            let channelKey = key.name("\(appID)\n\(channel)")
            let last = try await connection.run { schema, connection in
                try await schema.vacate(channelKey: channelKey, node: node, on: connection, logger: logger)
            }
            if last { emit(appID, .channelVacated(channel: channel)) }
        }
    }

    /// Removes the rows of nodes without a heartbeat within the node timeout (not this node's).
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
        for sealed in vacated {
            guard let envelope = try? seal.open(sealed, node: "occupancy", carrier: .webhook) else { continue }
            let parts = envelope.body.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            emit(String(parts[0]), .channelVacated(channel: String(parts[1])))
        }
    }

    private func emit(_ appID: String, _ event: WebhookEvent) {
        emitter.withLock { $0 }?.emit(appID: appID, event)
    }
}
