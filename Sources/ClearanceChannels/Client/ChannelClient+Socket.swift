import Clearance
import Logging
import NIOSSL
import WSClient
extension ChannelClient {
    /// Opens sockets until the policy says stop or ``disconnect()`` cancels the task.
    func runConnectionLoop() async {
        while !Task.isCancelled {
            let cause = await runOneSocket()
            socketEnded()
            if Task.isCancelled || machine.state.isTerminal { break }
            switch machine.lost(cause, at: .now, using: &random) {
            case .stop:
                logger.warning("channels.connection.failed", metadata: ["cause": "\(cause)"])
                failPendingChannels(after: cause)
                publishState()
                return
            case .reconnect(let delay):
                logger.debug("channels.connection.lost", metadata: ["cause": "\(cause)", "retryIn": "\(delay)"])
                reconnectScheduled = true
                defer { reconnectScheduled = false }
                recentReconnectDelays = Array((recentReconnectDelays + [delay]).suffix(8))
                publishState()
                if delay > .zero {
                    do { try await Task.sleep(for: delay) } catch { return }
                }
                guard !Task.isCancelled, !machine.state.isTerminal else { return }
                machine.reconnecting()
                publishState()
            }
        }
    }

    /// One socket, from opening to its end; returns why it ended.
    private func runOneSocket() async -> DisconnectCause {
        let url: String
        let tls: TLSConfiguration?
        do {
            url = try options.webSocketURL(key: key)
            tls = try options.tlsConfiguration()
        } catch {
            return .protocolViolation(error.message)
        }
        let configuration = WebSocketClientConfiguration(
            maxFrameSize: options.maximumMessageSize,
            closeTimeout: options.closeTimeout
        )
        var wsLogger = logger
        wsLogger[metadataKey: "component"] = "websocket"
        // swift-websocket's connect has no timeout and ignores cancellation until the upgrade
        // completes: a server that accepts TCP but never answers (one shutting down, say) would
        // hold the client in `connecting` for ever. So the attempt runs on its own, and is given
        // up after `connectTimeout` if its handler has not started; a late handler then closes at once.
        connectAttempt = (connectAttempt.id &+ 1, false, false)
        let attempt = connectAttempt.id
        let timeout = options.connectTimeout
        let outcome = FirstResult<DisconnectCause, Never>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<DisconnectCause, Never>) in
                outcome.install(continuation)
                Task {
                    let cause = await self.connectAndRun(url: url, configuration: configuration, tls: tls, logger: wsLogger, attempt: attempt)
                    outcome.resume(cause)
                }
                Task {
                    try? await Task.sleep(for: timeout)
                    if self.abandonIfNotStarted(attempt) {
                        outcome.resume(.timedOut("no WebSocket upgrade within \(timeout)"))
                    }
                }
            }
        } onCancel: {
            outcome.resume(.transport(CancellationError()))
        }
    }

    /// Marks `attempt` given up unless its handler already started; true when it was given up.
    private func abandonIfNotStarted(_ attempt: UInt64) -> Bool {
        guard connectAttempt.id == attempt, !connectAttempt.started else { return false }
        connectAttempt.abandoned = true
        connectAttemptsGivenUp += 1
        return true
    }

    /// Marks `attempt` started; false when it was given up (its socket must close at once).
    private func beginAttempt(_ attempt: UInt64) -> Bool {
        guard connectAttempt.id == attempt, !connectAttempt.abandoned else { return false }
        connectAttempt.started = true
        return true
    }

    private func connectAndRun(
        url: String, configuration: WebSocketClientConfiguration, tls: TLSConfiguration?, logger wsLogger: Logger, attempt: UInt64
    ) async -> DisconnectCause {
        do {
            let closeFrame = try await WebSocketClient.connect(url: url, configuration: configuration, tlsConfiguration: tls, logger: wsLogger) { inbound, outbound, _ in
                guard await self.beginAttempt(attempt) else { return }
                try await self.runSocket(inbound: inbound, outbound: outbound)
            }
            if let cause = socket?.endCause { return cause }
            guard let closeFrame else { return .transport(ChannelClientError.notConnected) }
            return .closed(code: Self.closeCode(of: closeFrame), reason: closeFrame.reason ?? "")
        } catch let ended as SocketEnded {
            return ended.cause
        } catch {
            if let cause = socket?.endCause { return cause }
            return .transport(error)
        }
    }

    /// The WebSocket handler: reads frames, watches activity, runs the socket's jobs; the first
    /// of them to end ends the socket, and takes the others with it.
    private nonisolated func runSocket(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let (jobs, continuation) = AsyncStream<@Sendable () async -> Void>.makeStream()
        let token = await attach(outbound, jobs: continuation)
        defer { continuation.finish() }
        let maximumSize = options.maximumMessageSize
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await message in inbound.messages(maxSize: maximumSize) {
                    guard case .text(let text) = message else { continue }
                    await self.received(text, on: token)
                }
            }
            group.addTask { try await self.watch(token) }
            group.addTask {
                await withDiscardingTaskGroup { jobGroup in
                    for await job in jobs { jobGroup.addTask { await job() } }
                }
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Makes `writer` the current socket; returns its token.
    private func attach(_ writer: WebSocketOutboundWriter, jobs: AsyncStream<@Sendable () async -> Void>.Continuation) -> UInt64 {
        nextSocketToken += 1
        let now = ContinuousClock.now
        socket = LiveSocket(
            token: nextSocketToken,
            writer: writer,
            jobs: jobs,
            openedAt: now,
            monitor: ActivityMonitor(timeout: options.activityTimeout, pongTimeout: options.pongTimeout, now: now)
        )
        return nextSocketToken
    }

    /// The activity watchdog: waits for `connection_established`, then pings after silence and
    /// gives up when nothing answers.
    private nonisolated func watch(_ token: UInt64) async throws {
        while true {
            switch await watchdogStep(token) {
            case .wait(let deadline):
                try await Task.sleep(until: deadline, clock: .continuous)
            case .sendPing:
                await send(OutgoingFrame.ping, on: token)
            case .timedOut:
                throw SocketEnded(cause: await endCause(of: token) ?? .timedOut("no answer"))
            }
        }
    }

    private func watchdogStep(_ token: UInt64) -> ActivityMonitor.Step {
        guard var live = socket, live.token == token else { return .timedOut }
        let now = ContinuousClock.now
        if !live.established {
            let deadline = live.openedAt + options.connectTimeout
            // Look again soon: once established, the activity timeout takes over.
            if now < deadline { return .wait(until: min(deadline, now + .milliseconds(100))) }
            live.endCause = .timedOut("no pusher:connection_established within \(options.connectTimeout)")
            socket = live
            return .timedOut
        }
        let step = live.monitor.next(at: now)
        if step == .timedOut {
            live.endCause = .timedOut("no pusher:pong within \(options.pongTimeout) of a ping")
        }
        socket = live
        return step
    }

    private func endCause(of token: UInt64) -> DisconnectCause? {
        socket?.token == token ? socket?.endCause : nil
    }

    /// Sends `text` on the socket `token`, if it is still the current one.
    func send(_ text: String, on token: UInt64) async {
        guard let live = socket, live.token == token else { return }
        do {
            try await live.writer.write(.text(text))
        } catch {
            logger.debug("channels.send.failed", metadata: ["error": "\(type(of: error))"])
        }
    }

    /// Queues work that lives as long as the current socket.
    func enqueueJob(_ job: @escaping @Sendable () async -> Void) {
        socket?.jobs.yield(job)
    }

    /// The socket ended: no authorization of it may be sent any more, channels wait again,
    /// presence lists are cleared.
    func socketEnded() {
        guard socket != nil else { return }
        socket?.jobs.finish()
        socket = nil
        filter.disconnected()
        signInState.socketEnded()
        for name in records.keys {
            records[name]?.socketEnded()
            let channel = records[name]!.channel
            if case .failed(.invalidChannelName) = channel.state { continue }
            channel.setState(.pending)
            channel.roster.clear()
        }
    }

    /// The connection failed for good: what waited for it fails too. A 4009 close is the
    /// server refusing authorization, reported to the channels that needed it as such.
    private func failPendingChannels(after cause: DisconnectCause) {
        let error: ChannelError
        if case .closed(let code, let reason) = cause, code == 4009 {
            error = .rejectedByServer(.connectionClosed(code: code, reason: reason))
        } else {
            error = .connectionFailed(cause.error)
        }
        for record in records.values where !record.channel.state.isSubscribed {
            if case .failed = record.channel.state { continue }
            record.channel.setState(.failed(error))
        }
        signInState.fail(error)
    }

    /// The number of a WebSocket close code.
    static func closeCode(of frame: WebSocketCloseFrame) -> UInt16 {
        switch frame.closeCode {
        case .normalClosure: 1000
        case .goingAway: 1001
        case .protocolError: 1002
        case .unacceptableData: 1003
        case .dataInconsistentWithMessage: 1007
        case .policyViolation: 1008
        case .messageTooLarge: 1009
        case .missingExtension: 1010
        case .unexpectedServerError: 1011
        case .unknown(let number): number
        }
    }
}
