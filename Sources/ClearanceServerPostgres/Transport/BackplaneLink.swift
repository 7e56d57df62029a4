import Clearance
import ClearanceServer
import Foundation
import Logging
import PostgresNIO

/// One node's link to the others through PostgreSQL: two connections (one listens, one
/// notifies and keeps the heartbeat), re-opened after any failure until ``stop(farewell:)``.
///
/// While the link is up, messages queued on ``queue`` are packed into notifications, sealed with
/// the cluster key (``BackplaneSeal``) and sent in order, each with the next number of this
/// node's sequence; notifications from other nodes are opened and checked against replays
/// (``BackplaneReplayGuard``) before they go to the hub (its `ClusterInbox`): one that does not open,
/// or was seen before, is dropped, counted and logged (throttled), never applied. Every
/// heartbeat interval the node records that it is alive and the hub forgets nodes that
/// stopped doing so.
final class BackplaneLink: Sendable {
    let configuration: PostgresBackplaneConfiguration
    let nodeID: String
    let queue: BackplaneQueue
    let states: Broadcaster<BackplaneState>
    private let schema: BackplaneSchema
    private let logger: Logger
    private let stopping = Latch()
    private let finished = Latch()
    private let started = Locked(false)
    private let connectionIDs = Locked(0)
    private let seal: BackplaneSeal
    private let sequence = Locked<UInt64>(0)
    private let replays = Locked(BackplaneReplayGuard())
    private let rejections = Locked(0)
    private let rejectionLog: ThrottledLog
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
        seal = BackplaneSeal(key: configuration.clusterKey, namespace: configuration.namespace)
        rejectionLog = ThrottledLog("backplane.message.rejected", logger: logger)
    }

    /// Messages from other nodes dropped because they did not open or were seen before.
    var rejectedMessages: Int { rejections.withLock { $0 } }

    /// Keeps the link up until ``stop(farewell:)`` (then sends what is queued, at most
    /// ``flushTimeout`` long) or cancellation.
    func run(for inbox: ClusterInbox) async {
        started.withLock { $0 = true }
        if configuration.isUnprotectedRemoteDatabase {
            logger.warning("backplane.tls.off", metadata: [
                "database": "\(configuration)",
                "hint": "the database is not on this machine and TLS is off: add ?sslmode=require to the backplane URL",
            ])
        }
        defer {
            states.send(.stopped)
            finished.open()
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.reconnecting(inbox) }
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
    func stop(farewell: [ClusterMessage]) async {
        stopping.open()
        queue.appendLast(farewell)
        // A link that never ran has nothing to finish.
        guard started.withLock({ $0 }) else { return }
        await finished.wait()
    }

    /// Connects, and connects again after every failure. A failure is logged as a warning (and
    /// published) when the link was up or the reason changed, not at every attempt of a long
    /// outage; every failed attempt is logged at debug level (`backplane.attempt.failed`).
    private func reconnecting(_ inbox: ClusterInbox) async {
        while !stopping.isOpen, !Task.isCancelled {
            do {
                try await session(inbox)
            } catch {
                guard !stopping.isOpen, !Task.isCancelled else { return }
                let state = BackplaneState.unavailable(reason: Self.describe(error))
                logger.debug("backplane.attempt.failed", metadata: ["node": "\(nodeID)", "reason": "\(state)"])
                if states.replayed != state {
                    logger.warning("backplane.unavailable", metadata: ["node": "\(nodeID)", "reason": "\(state)"])
                    states.send(state)
                }
            }
            await stopping.wait(atMost: configuration.reconnectDelay)
        }
    }

    /// One connection to the database, from connecting to its loss (thrown) or a clean stop.
    private func session(_ inbox: ClusterInbox) async throws {
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
                await inbox.linkEstablished { queue.replace(with: $0) }
                let since = inbox.clock.now
                logger.info("backplane.connected", metadata: ["node": "\(nodeID)", "database": "\(configuration)"])
                states.send(.connected)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await notification in notifications {
                            try await self.received(notification.payload, inbox: inbox, writer: writer)
                        }
                        throw ListenEnded()
                    }
                    group.addTask { try await self.sending(on: writer, inbox: inbox) }
                    group.addTask { try await self.beating(on: writer, inbox: inbox, since: since) }
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

    /// Opens a notification from another node, checks it was not seen before, and hands its
    /// messages (read from the payload table when it points there) to the hub.
    private func received(_ text: String, inbox: ClusterInbox, writer: BoundedConnection) async throws {
        guard let (node, sealed) = BackplanePayload.split(notification: text) else {
            return reject("not a sealed notification (a node of an earlier version, or a forgery)", node: nil)
        }
        guard node != nodeID else { return }
        guard let envelope = try? seal.open(sealed, node: node, carrier: .notification) else {
            return reject("does not open (another cluster key, or a forgery)", node: node)
        }
        let now = inbox.clock.date
        if let refusal = replays.withLock({ $0.admit(node: node, sequence: envelope.sequence, sentAt: envelope.sentAt, now: now) }) {
            return reject(refusal == .replayed ? "seen before (a replay)" : "sealed too long ago (a replay, or clocks apart)", node: node)
        }
        switch BackplanePayload(body: envelope.body) {
        case let .messages(lines)?:
            await inbox.receive(lines.compactMap(ClusterMessage.init(line:)), from: node) { self.answer($0) }
        case let .stored(id)?:
            guard let row = try await schema.storedPayload(id: id, on: writer, logger: logger) else {
                logger.warning("backplane.payload.missing", metadata: ["node": "\(node)", "id": "\(id)"])
                return
            }
            guard let stored = try? seal.open(row, node: node, carrier: .storedPayload), stored.sequence == envelope.sequence,
                  case let .messages(lines)? = BackplanePayload(body: stored.body)
            else { return reject("its stored payload does not open or is not the one sealed with it", node: node) }
            await inbox.receive(lines.compactMap(ClusterMessage.init(line:)), from: node) { self.answer($0) }
        case nil:
            reject("an unreadable body", node: node)
        }
    }

    /// Queues what the hub answers another node (its whole state, after a `hello`), whatever
    /// room is left: it replaces what the others know of this node. Called on the hub's state.
    private func answer(_ messages: [ClusterMessage]) {
        if !messages.isEmpty { queue.appendWholeState(messages) }
    }

    /// A notification that is dropped, never applied: counted and logged (throttled).
    private func reject(_ reason: String, node: String?) {
        rejections.withLock { $0 += 1 }
        rejectionLog.record(["reason": "\(reason)", "node": "\(node ?? "?")"])
    }

    /// The next number of this node's sequence.
    private func nextSequence() -> UInt64 {
        sequence.withLock { sequence in
            sequence += 1
            return sequence
        }
    }

    /// Seals `body` and notifies every node of it: in the notification itself when it fits, else
    /// stored (sealed) with the notification carrying the row's id under the same number.
    private func send(_ body: String, limit: Int, at now: Date, on writer: BoundedConnection) async throws {
        let number = nextSequence()
        var carried = body
        if body.utf8.count > limit {
            let id = try await schema.store(
                seal.seal(body, node: nodeID, sequence: number, sentAt: now, carrier: .storedPayload), on: writer, logger: logger)
            carried = BackplanePayload.pointer(id: id)
        }
        let sealed = seal.seal(carried, node: nodeID, sequence: number, sentAt: now, carrier: .notification)
        try await schema.notify(BackplanePayload.notification(node: nodeID, sealed: sealed), on: writer, logger: logger)
    }

    /// Sends what is queued, in order, packed into as few notifications as possible; returns
    /// once stopping and nothing is left (the node's heartbeat row removed). After an overflow,
    /// once what was queued is sent, it queues the whole state the hub gives again.
    private func sending(on writer: BoundedConnection, inbox: ClusterInbox) async throws {
        let limit = BackplanePayload.bodyLimit(node: nodeID)
        while !Task.isCancelled {
            let batch = await queue.next()
            for body in BackplanePayload.pack(batch, limit: limit) {
                try await send(body, limit: limit, at: inbox.clock.date, on: writer)
            }
            queue.sent(batch.count)
            if queue.takeResync() {
                logger.notice("backplane.resync", metadata: ["dropped": "\(queue.dropped)"])
                await inbox.sendWholeState { queue.appendWholeState($0) }
            }
            // Ends once the farewell is sent (the queue decides: `stopping` fires before the
            // farewell is queued, and a batch taken in between must not end the sending).
            if queue.isDrained {
                try await schema.remove(node: nodeID, on: writer, logger: logger)
                return
            }
        }
    }

    /// Records this node's heartbeat every heartbeat interval of the hub's clock, forgets the
    /// nodes that stopped recording theirs, and collects garbage every minute of it.
    private func beating(on writer: BoundedConnection, inbox: ClusterInbox, since: ContinuousClock.Instant) async throws {
        let clock = inbox.clock
        var collected = clock.now
        while true {
            try await clock.sleep(for: configuration.heartbeatInterval)
            try await schema.heartbeat(node: nodeID, on: writer, logger: logger)
            let live = try await schema.liveNodes(within: configuration.nodeTimeout, on: writer, logger: logger)
            // Right after a reconnect every row may look old (the database was away for all):
            // judge the others only once they have had the time to come back.
            if clock.now - since >= configuration.nodeTimeout {
                for node in await inbox.forgetNodes(notIn: live, silentFor: configuration.nodeTimeout) {
                    logger.info("backplane.node.gone", metadata: ["node": "\(node)"])
                }
            }
            if clock.now - collected >= .seconds(60) {
                try await schema.collectGarbage(on: writer, logger: logger)
                collected = clock.now
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
