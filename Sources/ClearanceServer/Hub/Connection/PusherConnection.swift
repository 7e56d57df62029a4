import Clearance
import HummingbirdWebSocket
import Logging
import NIOCore

/// One client connection, with no task of its own while it waits: its
/// ``PusherChannelHandler`` hands it the client's messages from the channel's event loop, and a
/// short-lived task works through them, one at a time and in order (admission first, the end of
/// the connection last), then ends. A long-lived task per connection would keep the memory of
/// its deepest await for as long as the connection lives.
///
/// - messages go to a ``ConnectionSession``; a client that sends faster than they are handled
///   stops being read (TCP slows it down) once ``readAhead`` messages wait;
/// - replies and published events go through the ``ConnectionOutbox`` straight to the channel
///   (``WebSocketFrameSink``), in one order;
/// - timers and the shutdown close are the ``ConnectionControl``'s business, which the hub's one
///   ticker drives.
final class PusherConnection: Sendable {
    /// Messages that may wait before the channel stops reading.
    static let readAhead = 16

    private enum Step: Sendable {
        case admit
        case message(WebSocketMessage)
        case ended
    }

    private struct State {
        var steps: [Step] = []
        var working = false
        var paused = false
        var session: ConnectionSession?
        var socketID: String?
        var logger: Logger
    }

    /// What a connection uses of the hub, and nothing else: made once by the hub, shared by every
    /// connection (a reference: a connection costs no more memory than with the hub).
    final class Dependencies: Sendable {
        /// Where refusals are counted.
        let counters: HubCounters
        /// Each app's metric handles.
        let metrics: HubMetrics
        /// What an app was refused at its own bound, throttled per app.
        let appRefusalLog: ThrottledLog
        let logger: Logger
        /// What each connection's session and sink use (the registry, the channel state, the
        /// subscriptions, the limits, the apps and the clock are the session's).
        let session: ConnectionSession.Dependencies
        let sink: WebSocketFrameSink.Dependencies

        /// The live connections: admission, attach, sign-in, removal.
        var registry: ConnectionRegistry { session.registry }
        /// Who is subscribed and present.
        var channels: HubChannelState { session.channels }
        /// The hub's subscriptions, given back when a connection ends.
        var subscriptions: SubscriptionBudget { session.subscriptions }
        /// The hub's limits (a reload does not change them).
        var limits: HubLimits { session.limits }
        /// The apps served now (a reload swaps them).
        var apps: HubAppTable { session.apps() }
        /// The hub's clock.
        var clock: any HubClock { session.clock }

        init(
            counters: HubCounters, metrics: HubMetrics, appRefusalLog: ThrottledLog, logger: Logger,
            session: ConnectionSession.Dependencies, sink: WebSocketFrameSink.Dependencies
        ) {
            self.counters = counters
            self.metrics = metrics
            self.appRefusalLog = appRefusalLog
            self.logger = logger
            self.session = session
            self.sink = sink
        }
    }

    /// What the connection uses of the hub (``Dependencies``).
    let hub: Dependencies
    let app: HubApp
    let protocolVersion: Int
    let channel: any Channel
    let sink: WebSocketFrameSink
    /// The app's metric handles.
    private let metrics: AppMetrics
    private let state: Locked<State>

    init(hub: Dependencies, app: HubApp, protocolVersion: Int, channel: any Channel) {
        self.hub = hub
        self.app = app
        self.protocolVersion = protocolVersion
        self.channel = channel
        metrics = hub.metrics.app(app.id)
        sink = WebSocketFrameSink(channel: channel, shared: hub.sink, sent: metrics.messagesSent)
        state = Locked(State(logger: hub.logger))
    }

    /// The WebSocket is open: admit the connection (or refuse it with its close code).
    func opened() { enqueue(.admit) }

    /// A complete message from the client.
    func received(_ message: WebSocketMessage) {
        metrics.messagesReceived.increment()
        enqueue(.message(message))
    }

    /// The channel closed: leave every channel, free the socket id.
    func ended() { enqueue(.ended) }

    private func enqueue(_ step: Step) {
        let (startWorker, pause) = state.withLock { state -> (Bool, Bool) in
            state.steps.append(step)
            let pause = !state.paused && state.steps.count >= Self.readAhead
            if pause { state.paused = true }
            guard !state.working else { return (false, pause) }
            state.working = true
            return (true, pause)
        }
        if pause { channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in } }
        if startWorker { Task { await self.work() } }
    }

    /// Works through the queued steps, then ends (the next step starts another worker).
    private func work() async {
        var session = state.withLock { $0.session }
        while true {
            let (next, resume) = state.withLock { state -> (Step?, Bool) in
                guard !state.steps.isEmpty else {
                    state.session = session
                    state.working = false
                    let resume = state.paused
                    state.paused = false
                    return (nil, resume)
                }
                return (state.steps.removeFirst(), false)
            }
            guard let next else {
                if resume { channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in } }
                return
            }
            switch next {
            case .admit:
                session = await admit()
            case let .message(message):
                await session?.handle(message)
            case .ended:
                let held = session?.subscriptionCount ?? 0
                await end(admitted: session != nil)
                hub.subscriptions.release(appID: app.id, held)
                session = nil
            }
        }
    }

    /// Admits the connection and greets it with `pusher:connection_established`; refuses it
    /// (`pusher:error`, then the close code) when the path, the app or a limit says no.
    private func admit() async -> ConnectionSession? {
        let outcome: Result<Void, HubCloseCode>
        let authorizationTimeout = app.configuration.authorizationTimeout
        let appLimit = hub.apps.connectionLimit(of: app, limits: hub.limits)
        switch await hub.registry.admit(
            appID: app.id, key: app.key, appLimit: appLimit, hubLimit: hub.limits.connections.maxConnections,
            address: channel.remoteAddress?.ipAddress,
            unauthorizedPerAddress: authorizationTimeout == nil ? nil : hub.limits.connections.maxUnauthorizedConnectionsPerIP)
        {
        case let .refused(code):
            if code == .overConnectionQuota {
                metrics.connectionsRefused.increment()
                hub.appRefusalLog.record(appID: app.id, ["what": "connections", "limit": "\(appLimit ?? 0)"])
            }
            outcome = .failure(code)
        case .refusedUnauthorizedAtAddress:
            metrics.unauthorizedRefused.increment()
            hub.counters.increment(.connectionsRefusedUnauthorizedAtAddress)
            hub.appRefusalLog.record(appID: app.id, ["what": "unauthorized_per_ip", "limit": "\(hub.limits.connections.maxUnauthorizedConnectionsPerIP)"])
            outcome = .failure(.overCapacity)
        case let .admitted(socketID):
            outcome = .success(())
            metrics.connectionsOpened.increment()
            metrics.connections.increment()
            var logger = hub.logger
            logger[metadataKey: "socket_id"] = "\(socketID)"
            logger[metadataKey: "app_id"] = "\(app.id)"
            logger.info("hub.connection.opened", metadata: ["protocol": "\(protocolVersion)"])
            sink.named(socketID)
            state.withLock {
                $0.socketID = socketID
                $0.logger = logger
            }
            let outbox = ConnectionOutbox(sink: sink)
            let control = ConnectionControl(
                settings: ConnectionTimers.Settings(limits: hub.limits, authorizationTimeout: authorizationTimeout),
                outbox: outbox, channel: channel, logger: logger, now: hub.clock.now)
            await hub.channels.addConnection(socketID: socketID, appID: app.id, outbox: outbox)
            // Attached before the client learns its socket id: from then on the hub's timers
            // tick it and the HTTP API finds it (a test that moves a manual clock as soon as the
            // client is established saw no ping: the tick came before the attach).
            let attached = await hub.registry.attach(control, socketID: socketID)
            outbox.deliver(.frame(PusherFrame.connectionEstablished(socketID: socketID, activityTimeout: hub.limits.connections.activityTimeout)))
            if !attached {
                control.close(.reconnectImmediately, at: hub.clock.now)
            } else if let code = hub.apps.closeCode(forAdmitted: app) {
                // A reload removed, re-keyed or disabled the app while it was admitted.
                control.close(code, at: hub.clock.now)
            }
            return ConnectionSession(shared: hub.session, app: app, socketID: socketID, outbox: outbox, control: control, logger: logger)
        }
        if case let .failure(code) = outcome { Self.refuse(sink, code: code, hub: hub, appID: app.id) }
        return nil
    }

    /// Sends `pusher:error` with `code`, then the close frame with it; disconnects after the
    /// close timeout if the client does not answer. (The timeout is set first: it counts from
    /// before the close frame goes out, never from after the client could have read it.)
    static func refuse(_ sink: WebSocketFrameSink, code: HubCloseCode, hub: Dependencies, appID: String?) {
        hub.logger.info("hub.connection.refused", metadata: ["app_id": "\(appID ?? "")", "code": "\(code.rawValue)"])
        hub.counters.increment(refusalCounter(code))
        sink.disconnect(after: hub.sink.closeTimeout)
        sink.deliver(.frame(PusherFrame.error(code)))
        sink.close(code)
    }

    /// The ``HubCounter`` a refusal with `code` adds to.
    private static func refusalCounter(_ code: HubCloseCode) -> HubCounter {
        switch code {
        case .overCapacity: .connectionsRefusedAtHubLimit
        case .overConnectionQuota: .connectionsRefusedAtAppLimit
        case .reconnectImmediately: .connectionsRefusedShuttingDown
        default: .connectionsRefusedAtRequest
        }
    }

    private func end(admitted: Bool) async {
        sink.finish()
        let (socketID, logger) = state.withLock { ($0.socketID, $0.logger) }
        guard admitted, let socketID else { return }
        metrics.connections.decrement()
        await hub.channels.removeConnection(socketID: socketID, appID: app.id)
        await hub.registry.remove(socketID: socketID)
        logger.info("hub.connection.closed")
    }
}
