import Clearance
import Logging
import PostgresNIO

/// One node's link to the others through PostgreSQL: two connections (one listens, one
/// notifies and keeps the heartbeat), re-opened after any failure until ``stop(farewell:)``.
///
/// While the link is up, messages queued on ``queue`` are packed into notifications and sent in
/// order; notifications from other nodes go to the ``BackplaneMember``; every heartbeat interval
/// the node records that it is alive and the member forgets nodes that stopped doing so.
final class BackplaneLink: Sendable {
    let configuration: PostgresBackplaneConfiguration
    let nodeID: String
    let queue: BackplaneQueue
    let states: Broadcaster<BackplaneState>
    private let schema: BackplaneSchema
    private let logger: Logger
    private let stopping = StopSignal()
    private let finished = StopSignal()
    private let started = Locked(false)
    private let connectionIDs = Locked(0)
    /// The notifications stopped: the listening connection is gone.
    private struct ListenEnded: Error, CustomStringConvertible {
        var description: String { "the listening connection ended" }
    }

    /// How long a stopping node may take to send its last messages.
    static let flushTimeout: Duration = .seconds(3)

    init(configuration: PostgresBackplaneConfiguration, nodeID: String, queue: BackplaneQueue, logger: Logger) {
        self.configuration = configuration
        self.nodeID = nodeID
        self.queue = queue
        self.logger = logger
        states = Broadcaster(replaying: .connecting)
        schema = BackplaneSchema(namespace: configuration.namespace)
    }

    /// Keeps the link up until ``stop(farewell:)`` (then sends what is queued, at most
    /// ``flushTimeout`` long) or cancellation.
    func run(for member: some BackplaneMember) async {
        started.withLock { $0 = true }
        defer {
            states.send(.stopped)
            finished.fire()
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.reconnecting(member) }
            group.addTask {
                await self.stopping.wait()
                try? await Task.sleep(for: Self.flushTimeout)
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Queues `farewell` as the last messages, stops the link once they are sent (or the flush
    /// timeout passed) and waits for that.
    func stop(farewell: [BackplaneMessage]) async {
        stopping.fire()
        queue.appendLast(farewell)
        // A link that never ran has nothing to finish.
        guard started.withLock({ $0 }) else { return }
        await finished.wait()
    }

    /// Connects, and connects again after every failure. A failure is logged (and published)
    /// when the link was up or the reason changed, not at every attempt of a long outage.
    private func reconnecting(_ member: some BackplaneMember) async {
        while !stopping.isFired, !Task.isCancelled {
            do {
                try await session(member)
            } catch {
                guard !stopping.isFired, !Task.isCancelled else { return }
                let state = BackplaneState.unavailable(reason: Self.describe(error))
                if states.replayed != state {
                    logger.warning("backplane.unavailable", metadata: ["node": "\(nodeID)", "reason": "\(state)"])
                    states.send(state)
                }
            }
            await stopping.sleep(for: configuration.reconnectDelay)
        }
    }

    /// One connection to the database, from connecting to its loss (thrown) or a clean stop.
    private func session(_ member: some BackplaneMember) async throws {
        let writer = BoundedConnection(try await connect())
        let listener: PostgresConnection
        do {
            listener = try await connect()
        } catch {
            try? await writer.close()
            throw error
        }
        do {
            try await schema.create(on: writer, logger: logger)
            try await schema.heartbeat(node: nodeID, on: writer, logger: logger)
            try await listener.listen(on: schema.channel) { notifications in
                await member.linkEstablished()
                let since = ContinuousClock.now
                logger.info("backplane.connected", metadata: ["node": "\(nodeID)", "database": "\(configuration)"])
                states.send(.connected)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in notifications {
                            try await self.received(notification.payload, member: member, writer: writer)
                        }
                        throw ListenEnded()
                    }
                    group.addTask { try await self.sending(on: writer, member: member) }
                    group.addTask { try await self.beating(on: writer, member: member, since: since) }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch {
            try? await listener.close()
            try? await writer.close()
            throw error
        }
        try? await listener.close()
        try? await writer.close()
    }

    private func received(_ text: String, member: some BackplaneMember, writer: BoundedConnection) async throws {
        switch BackplanePayload(text) {
        case let .messages(node, lines)? where node != nodeID:
            await member.receive(lines.compactMap(BackplaneMessage.init(line:)), from: node)
        case let .stored(node, id)? where node != nodeID:
            guard let body = try await schema.storedPayload(id: id, on: writer, logger: logger),
                  case let .messages(storedNode, lines)? = BackplanePayload(body), storedNode == node
            else {
                logger.warning("backplane.payload.missing", metadata: ["node": "\(node)", "id": "\(id)"])
                return
            }
            await member.receive(lines.compactMap(BackplaneMessage.init(line:)), from: node)
        default:
            break
        }
    }

    /// Sends what is queued, in order, packed into as few notifications as possible; returns
    /// once stopping and nothing is left (the node's heartbeat row removed). After an overflow,
    /// once what was queued is sent, the member queues its whole state again.
    private func sending(on writer: BoundedConnection, member: some BackplaneMember) async throws {
        while !Task.isCancelled {
            let batch = await queue.next()
            for text in BackplanePayload.pack(batch, node: nodeID) {
                try await schema.notify(text, node: nodeID, on: writer, logger: logger)
            }
            if queue.takeResync() {
                logger.notice("backplane.resync", metadata: ["dropped": "\(queue.dropped)"])
                await member.resynchronize()
            }
            // Ends once the farewell is sent (the queue decides: `stopping` fires before the
            // farewell is queued, and a batch taken in between must not end the sending).
            if queue.isDrained {
                try await schema.remove(node: nodeID, on: writer, logger: logger)
                return
            }
        }
    }

    private func beating(on writer: BoundedConnection, member: some BackplaneMember, since: ContinuousClock.Instant) async throws {
        var collected = ContinuousClock.now
        while true {
            try await Task.sleep(for: configuration.heartbeatInterval)
            try await schema.heartbeat(node: nodeID, on: writer, logger: logger)
            let live = try await schema.liveNodes(within: configuration.nodeTimeout, on: writer, logger: logger)
            // Right after a reconnect every row may look old (the database was away for all):
            // judge the others only once they have had the time to come back.
            if ContinuousClock.now - since >= configuration.nodeTimeout {
                await member.forgetNodes(notIn: live, silentFor: configuration.nodeTimeout)
            }
            if ContinuousClock.now - collected >= .seconds(60) {
                try await schema.collectGarbage(on: writer, logger: logger)
                collected = .now
            }
        }
    }

    private func connect() async throws -> PostgresConnection {
        let id = connectionIDs.withLock { id -> Int in
            id += 1
            return id
        }
        return try await PostgresConnection.connect(configuration: configuration.connection, id: id, logger: logger)
    }

    /// A short reason for logs and ``BackplaneState/unavailable(reason:)``: the PostgreSQL
    /// error's code and the server's message (never a password: PostgreSQL does not echo one).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return Redactor.describe(error) }
        var text = "\(error.code)"
        if let message = error.serverInfo?[.message] { text += ": \(message)" }
        if let underlying = error.underlying { text += " (\(Redactor.describe(underlying)))" }
        return text
    }
}
