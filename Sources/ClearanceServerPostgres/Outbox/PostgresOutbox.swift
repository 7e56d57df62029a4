import Clearance
import ClearanceServer
import Foundation
import Logging
import PostgresNIO

/// The outbox in the cluster's PostgreSQL (a `ClusterOutbox`): the rows `clearance_publish`
/// writes inside apps' transactions, delivered once committed.
///
/// One node drains, as long as its connection lives (a session-level advisory lock), so that
/// every outbox event is triggered on one node and each channel's events reach every subscriber
/// in commit order: in each transaction it reads the first rows in order, hands each to the hub,
/// and removes those delivered or set aside once its messages to the other nodes are sent. A node
/// killed meanwhile has its transaction rolled back and its lock released: the next node delivers
/// those rows again (at least once). A commit wakes the draining node at once (the
/// function's NOTIFY, sent only on commit); every second it looks anyway (a notification alone is
/// not trusted).
final class PostgresOutbox: ClusterOutbox {
    /// Rows read per transaction.
    static let batch = 500

    private let configuration: PostgresBackplaneConfiguration
    private let connection: BackplaneConnection
    private let schema: BackplaneSchema
    private let logger: Logger
    /// What a notification opens: the drain loop's wait of the moment.
    private let bell = Locked(Latch())
    /// Whether this node's last turn found nothing (it logs when it starts draining again).
    private let idle = Locked(true)

    /// Waits until what the hub queued for the other nodes so far was sent: true; false when some
    /// of it may never be, or after `timeout`.
    private let relayed: @Sendable (Duration) async -> Bool

    init(configuration: PostgresBackplaneConfiguration, logger: Logger, relayed: @escaping @Sendable (Duration) async -> Bool) {
        self.relayed = relayed
        self.configuration = configuration
        connection = BackplaneConnection(configuration: configuration, id: 8, logger: logger)
        schema = BackplaneSchema(namespace: configuration.namespace)
        self.logger = logger
    }

    /// The events of a turn could not all be sent to the other nodes (the link lost, the queue
    /// full): the turn is rolled back, and its rows delivered again.
    struct NotRelayed: Error, CustomStringConvertible {
        var description: String { "the delivered events did not all reach the other nodes (the link lost, or its queue full)" }
    }

    /// How a turn at the outbox ended.
    private enum Turn {
        /// Nothing left.
        case empty
        /// A full batch: more may wait.
        case more
        /// An event asked to wait.
        case wait
        /// Another node drains: this one looks again in a second (and takes over when that
        /// node's connection ends).
        case elsewhere
    }

    func run(publish: @escaping @Sendable (OutboxEvent) async -> OutboxOutcome) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.listening() }
            group.addTask { await self.draining(publish) }
            await group.next()
            group.cancelAll()
        }
        await connection.close()
    }

    /// Drains the outbox whenever a notification came, and every second, until cancelled.
    private func draining(_ publish: @escaping @Sendable (OutboxEvent) async -> OutboxOutcome) async {
        var collected = ContinuousClock.now
        while !Task.isCancelled {
            // A new latch before the turn: a commit after it rings this one, one before it is read now.
            let latch = Latch()
            bell.withLock { $0 = latch }
            let turn: Turn
            do {
                turn = try await self.turn(publish)
                if ContinuousClock.now - collected >= .seconds(60) {
                    collected = ContinuousClock.now
                    let logger = logger
                    try await connection.run { schema, connection in try await schema.forgetRejectedOutboxRows(on: connection, logger: logger) }
                }
            } catch {
                guard !Task.isCancelled else { return }
                logger.notice("backplane.outbox.unavailable", metadata: ["reason": "\(BackplaneLink.describe(error))"])
                try? await Task.sleep(for: configuration.reconnectDelay)
                continue
            }
            switch turn {
            case .more: continue
            // The next commit, or a second.
            case .empty: await latch.wait(atMost: .seconds(1))
            // The app's rate, or its history's database: soon.
            case .wait: try? await Task.sleep(for: .milliseconds(100))
            // Another node's: commits are its to deliver.
            case .elsewhere: try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// One transaction: the cluster's turn, the first rows, each handed to `publish`, those
    /// done removed.
    private func turn(_ publish: @escaping @Sendable (OutboxEvent) async -> OutboxOutcome) async throws -> Turn {
        let logger = logger
        return try await connection.run { schema, connection in
            try await schema.transaction(on: connection, logger: logger) {
                guard try await schema.holdsOutboxTurn(on: connection, logger: logger) else { return .elsewhere }
                let rows = try await schema.outboxRows(limit: Self.batch, on: connection, logger: logger)
                if !rows.isEmpty, self.idle.withLock({ $0 }) {
                    // Once per stretch of work, not per batch.
                    self.idle.withLock { $0 = false }
                    logger.info("backplane.outbox.draining", metadata: ["rows": "\(rows.count)"])
                }
                var done: [Int64] = []
                var waiting = false
                for row in rows {
                    let event = OutboxEvent(
                        id: row.id, appID: row.appID, channels: row.channels, name: row.event, data: row.data, socketID: row.socketID)
                    switch await publish(event) {
                    case .delivered:
                        done.append(row.id)
                    case let .rejected(reason):
                        try await schema.rejectOutboxRow(id: row.id, reason: reason, on: connection, logger: logger)
                        done.append(row.id)
                    case .retryLater:
                        waiting = true
                    }
                    if waiting { break }
                }
                // Removed once the other nodes have them: a node killed before leaves them to the next.
                if !done.isEmpty, !(await self.relayed(.seconds(10))) { throw NotRelayed() }
                try await schema.removeOutboxRows(done, on: connection, logger: logger)
                if waiting { return .wait }
                if rows.isEmpty { self.idle.withLock { $0 = true } }
                return rows.count == Self.batch ? .more : .empty
            }
        }
    }

    /// Listens for the commits' notifications, reconnecting after a loss, until cancelled.
    private func listening() async {
        while !Task.isCancelled {
            do {
                let listener = try await PostgresConnection.connect(configuration: configuration.connection, id: 9, logger: logger)
                do {
                    try await listener.listen(on: schema.outboxNotification) { notifications in
                        // Anything committed while no one listened is found now.
                        self.bell.withLock { $0 }.open()
                        for try await _ in notifications { self.bell.withLock { $0 }.open() }
                    }
                } catch {
                    try? await listener.close()
                    throw error
                }
                try? await listener.close()
            } catch {
                guard !Task.isCancelled else { return }
                logger.debug("backplane.outbox.listen.failed", metadata: ["reason": "\(BackplaneLink.describe(error))"])
            }
            try? await Task.sleep(for: configuration.reconnectDelay)
        }
    }
}
