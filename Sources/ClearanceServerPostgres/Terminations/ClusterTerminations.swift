import Clearance
import ClearanceServer
import Foundation
import Logging

/// `terminate_connections` for the whole cluster, as state: the node that was asked writes a row
/// (sealed with the cluster key) that stays in the database for the termination's grace period,
/// and every node reads the rows it has not seen yet, every ``pollInterval``, and closes the
/// user's connections. A node whose link was down, or whose message queue was full, still finds
/// the row when it reads again; a row that could not be written yet (the database away) waits
/// here, in order, and is written once it is back (at most ``limit`` wait; past it the oldest is
/// dropped and logged).
final class ClusterTerminations: Sendable {
    static let limit = 10_000

    private let connection: BackplaneConnection
    private let seal: BackplaneSeal
    private let node: String
    private let configuration: PostgresBackplaneConfiguration
    private let logger: Logger
    private let pending = PendingWrites<UserTermination>(limit: ClusterTerminations.limit)
    /// Where the terminations read from the database go (the hub's stream).
    private let deliver: @Sendable (UserTermination) -> Void

    /// How often a node reads the rows it has not seen.
    let pollInterval: Duration = .milliseconds(200)

    init(configuration: PostgresBackplaneConfiguration, node: String, logger: Logger, deliver: @escaping @Sendable (UserTermination) -> Void) {
        connection = BackplaneConnection(configuration: configuration, id: 5, logger: logger)
        seal = BackplaneSeal(key: configuration.clusterKey, namespace: configuration.namespace)
        self.node = node
        self.configuration = configuration
        self.logger = logger
        self.deliver = deliver
    }

    /// Queues a termination this node was asked for, to be written (never waits).
    func record(_ termination: UserTermination) {
        let dropped = pending.append(termination)
        if dropped { logger.error("backplane.terminations.full", metadata: ["limit": "\(Self.limit)"]) }
    }

    /// Writes what is pending and reads what other nodes wrote, until ``stop(timeout:)``: every
    /// ``pollInterval`` of the machine's time (a pace, not a deadline), ended rows collected every
    /// minute of `clock` (the hub's), which also stamps what it seals.
    func run(clock: any HubClock = SystemHubClock()) async {
        var seen: Int64 = 0
        var collected = clock.now
        while !pending.isStopped, !Task.isCancelled {
            do {
                while let next = pending.first {
                    try await write(next, at: clock.date)
                    pending.removeFirst()
                }
                for (id, sealed) in try await read(after: seen) {
                    seen = id
                    guard let (origin, termination) = open(sealed), origin != node else { continue }
                    deliver(termination)
                }
                if clock.now - collected > .seconds(60) {
                    try await connection.run { schema, connection in try await schema.forgetEndedTerminations(on: connection, logger: self.logger) }
                    collected = clock.now
                }
            } catch {
                logger.notice("backplane.terminations.unavailable", metadata: ["reason": "\(BackplaneLink.describe(error))"])
                try? await Task.sleep(for: configuration.reconnectDelay)
                continue
            }
            try? await Task.sleep(for: pollInterval)
        }
    }

    /// Ends ``run()`` once what is pending is written (at most `timeout`).
    func stop(timeout: Duration) async {
        await pending.stop(closing: connection, within: timeout)
    }

    private func write(_ termination: UserTermination, at now: Date) async throws {
        let body = [node, termination.appID, termination.userID].joined(separator: "\n")
        let sealed = seal.seal(body, node: "terminations", sequence: 0, sentAt: now, carrier: .webhook)
        let (seconds, logger) = (max(termination.gracePeriod, 1), logger)
        try await connection.run { schema, connection in
            try await schema.recordTermination(sealed: sealed, seconds: seconds, on: connection, logger: logger)
        }
    }

    private func read(after id: Int64) async throws -> [(id: Int64, sealed: String)] {
        let logger = logger
        return try await connection.run { schema, connection in try await schema.terminations(after: id, on: connection, logger: logger) }
    }

    /// The node that wrote the row and its termination; nil (logged) for a row that does not
    /// open with the cluster key.
    private func open(_ sealed: String) -> (String, UserTermination)? {
        guard let envelope = try? seal.open(sealed, node: "terminations", carrier: .webhook) else {
            logger.warning("backplane.message.rejected", metadata: ["reason": "a termination does not open with the cluster key"])
            return nil
        }
        let parts = envelope.body.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { return nil }
        return (parts[0], UserTermination(appID: parts[1], userID: parts[2]))
    }
}
