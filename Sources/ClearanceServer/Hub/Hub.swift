import Clearance
import ClearanceSigning
import Foundation
import Logging
import NIOCore

/// The hub's shared core: apps, limits, channel state and live connections. Decides how each
/// upgraded WebSocket starts (``admission(path:channel:)``) and hands it to a ``PusherConnection``.
final class Hub: Sendable {
    /// The configuration the hub started with (a reload changes its apps: ``apps``).
    let configuration: HubConfiguration
    /// The apps served now (a reload swaps them: ``swapApps(_:)``).
    private let appTable: Locked<HubAppTable>
    /// Each app's HTTP API rates.
    let rates = AppRequestRates()
    /// The users whose connections were terminated within the grace period.
    let terminatedUsers: TerminatedUsers
    /// Who is connected, subscribed and present, here and (on a cluster) on the other nodes.
    let channels: HubChannelState
    let registry: ConnectionRegistry
    /// Refused clients and slow readers to cut when their close handshake runs out.
    let pendingDisconnects: PendingDisconnects
    let logger: Logger
    /// What the hub refused, cut or closed.
    let counters: HubCounters
    /// Every accepted socket, against the descriptor budget and the socket limits.
    let sockets: SocketBudget
    /// Every subscription, against ``HubChannelLimits/maxSubscriptions`` and each app's part of it.
    let subscriptions: SubscriptionBudget
    /// What an app was refused at its own bound (connections, subscriptions), throttled per app.
    let appRefusalLog: ThrottledLog
    /// HTTP API requests that failed verification (forged ones come in floods), throttled per app.
    let apiRejectionLog: ThrottledLog
    let socketRefusalLog: ThrottledLog
    let requestDeadlineLog: ThrottledLog
    /// Where the hub's webhook events go (``HubWebhooks/emit(appID:_:)``).
    let webhooks: HubWebhooks
    let originRefusalLog: ThrottledLog
    /// The hub's Prometheus metrics (its own registry).
    let metrics: HubMetrics
    /// The clock of every timer of the hub (not of its shutdown, which waits on real sockets).
    let clock: any HubClock
    /// What each ``PusherConnection`` (with its session and sink) uses, made once.
    let connectionDependencies: PusherConnection.Dependencies
    /// When the hub was made: its run loops' schedules start here, not when their tasks happen
    /// to start (a test's clock may have moved on by then).
    let madeAt: ContinuousClock.Instant

    var limits: HubLimits { configuration.limits }

    /// The apps served now.
    var apps: HubAppTable { appTable.withLock { $0 } }

    /// Serves `table`'s apps from now on; returns the table it replaces.
    func swapApps(_ table: HubAppTable) -> HubAppTable {
        appTable.withLock { current in
            defer { current = table }
            return current
        }
    }

    /// What the server's connections use of the hub (``HubChildChannel``).
    var childChannelDependencies: HubChildChannel.Dependencies {
        HubChildChannel.Dependencies(
            sockets: sockets, limits: limits, counters: counters, socketRefusalLog: socketRefusalLog, requestDeadlineLog: requestDeadlineLog,
            originRefusalLog: originRefusalLog, appRefusing: { [self] origin, path in appRefusing(origin: origin, path: path) },
            admission: { [self] path, channel in admission(path: path, channel: channel) })
    }

    /// What the HTTP API uses of the hub.
    var httpAPIDependencies: HubHTTPAPI.Dependencies {
        HubHTTPAPI.Dependencies(
            apps: connectionDependencies.session.apps, channels: channels, limits: limits, rates: rates, counters: counters, metrics: metrics,
            apiRejectionLog: apiRejectionLog, clock: clock, logger: logger,
            closeUserConnections: { [self] appID, userID in await closeUserConnections(appID: appID, userID: userID) })
    }

    /// - Parameters:
    ///   - socketBudget: The sockets the hub may hold open (its descriptor budget).
    ///   - cluster: The cluster this hub is a node of (nil: a hub on its own).
    ///   - webhookQueue: Where webhook events wait (in memory by default).
    ///   - metrics: Where the hub's metrics go (a registry of its own by default).
    ///   - clock: The clock of the hub's timers (the machine's by default).
    init(
        configuration: HubConfiguration,
        cluster: ClusterDrivers? = nil,
        logger: Logger,
        counters: HubCounters = HubCounters(),
        socketBudget: Int = .max,
        webhookQueue: (any WebhookQueue)? = nil,
        metrics: HubMetrics = HubMetrics(),
        clock: any HubClock = SystemHubClock()
    ) throws(HubConfigurationError) {
        try configuration.validate()
        try Self.refuseHistory(of: configuration.apps, cluster: cluster)
        let appTable = Locked(try HubAppTable(configuration: configuration))
        self.appTable = appTable
        webhooks = try HubWebhooks(configuration: configuration, queue: webhookQueue, counters: counters, metrics: metrics, clock: clock, logger: logger)
        self.configuration = configuration
        self.clock = clock
        madeAt = clock.now
        channels = HubChannelState(
            webhooks: webhooks, cluster: cluster, clock: clock, history: Self.historySettings(configuration),
            counters: counters
        ) {
            let limits = configuration.limits
            return EventCachePolicy(
                ttl: .seconds(limits.channels.cacheTTL), maxChannels: limits.channels.maxCachedChannels,
                maxChannelsPerApp: limits.appPart(of: limits.channels.maxCachedChannels, apps: appTable.withLock { $0.sharing }))
        }
        self.logger = logger
        self.counters = counters
        self.metrics = metrics
        for app in configuration.apps { _ = metrics.app(app.id) }
        metrics.bridge(counters)
        let limits = configuration.limits
        sockets = SocketBudget(limits: .init(
            sockets: socketBudget, httpSockets: limits.httpAPI.maxHTTPConnections, perAddress: limits.connections.maxConnectionsPerIP))
        let outbound = HubBudget(limit: limits.connections.maxTotalOutboundBytes)
        socketRefusalLog = ThrottledLog("hub.socket.refused", logger: logger)
        requestDeadlineLog = ThrottledLog("hub.request.deadline", level: .info, logger: logger)
        let pendingDisconnects = PendingDisconnects()
        self.pendingDisconnects = pendingDisconnects
        let sinkDependencies = WebSocketFrameSink.Dependencies(
            outbound: outbound, limits: limits.connections, counters: counters, slowReaderLog: ThrottledLog("hub.connection.slowReader", logger: logger),
            pendingDisconnects: pendingDisconnects, clock: clock)
        let appRefusalLog = ThrottledLog("hub.app.limit", logger: logger)
        self.appRefusalLog = appRefusalLog
        let subscriptions = SubscriptionBudget(
            limits: limits, appCount: { appTable.withLock { $0.sharing } }, counters: counters, metrics: metrics,
            hubFullLog: ThrottledLog("hub.subscriptions.full", logger: logger), appRefusalLog: appRefusalLog)
        self.subscriptions = subscriptions
        let registry = ConnectionRegistry()
        self.registry = registry
        let terminatedUsers = TerminatedUsers()
        self.terminatedUsers = terminatedUsers
        apiRejectionLog = ThrottledLog("hub.api.rejected", level: .info, logger: logger)
        originRefusalLog = ThrottledLog("hub.origin.refused", logger: logger)
        counters.register(.openSockets) { [sockets] in sockets.openSockets }
        counters.register(.subscriptions) { [total = subscriptions.total] in total.value }
        counters.register(.unsentBytes) { [outbound] in outbound.value }
        // The count alone, not the channel state: that holds the counters (no cycle).
        counters.register(.historyEvents) { [historyEvents = channels.historyEvents] in historyEvents.withLock { $0 } }
        let apps: @Sendable () -> HubAppTable = { appTable.withLock { $0 } }
        connectionDependencies = PusherConnection.Dependencies(
            counters: counters, metrics: metrics, appRefusalLog: appRefusalLog, logger: logger,
            session: ConnectionSession.Dependencies(
                channels: channels, webhooks: webhooks, subscriptions: subscriptions, registry: registry, terminatedUsers: terminatedUsers,
                clock: clock, limits: limits, apps: apps),
            sink: sinkDependencies)
    }

    /// How a WebSocket upgraded at `path` starts: a connection of its app, or refused with the
    /// Pusher close code the protocol expects (after the upgrade, as clients read it).
    func admission(path: String, channel: any Channel) -> PusherChannelHandler.Admission {
        switch evaluate(path: path) {
        case let .failure(code):
            return .refused(code, WebSocketFrameSink(channel: channel, shared: connectionDependencies.sink), connectionDependencies)
        case let .success((app, version)):
            return .connection(PusherConnection(hub: connectionDependencies, app: app, protocolVersion: version, channel: channel))
        }
    }

    /// The app whose allowed origins refuse a WebSocket upgrade to `path` from a page of
    /// `origin` (the `Origin` header), or nil when the upgrade may go on: no `Origin` (not a
    /// browser), an origin the app lists or an app without a list, or a path that names no app
    /// (refused after the upgrade with its close code, as clients expect).
    func appRefusing(origin: String?, path: String) -> HubApp? {
        guard let origin, let key = ConnectionRequest.appKey(inPath: path), let app = apps.byKey[key], !app.origins.allows(origin) else {
            return nil
        }
        return app
    }

    /// Asks every connection to close with 4200, spread evenly over ``HubConnectionLimits/shutdownSpread``
    /// (in slices of 10 ms) so that the clients do not all return at once, and waits (at most
    /// the spread plus the close timeout plus a second) until they are gone.
    func closeAllConnections() async {
        let controls = await registry.beginShutdown()
        let spread = Duration.seconds(limits.connections.shutdownSpread)
        let start = ContinuousClock.now
        let slices = max(1, min(controls.count, Int(limits.connections.shutdownSpread * 100)))
        let perSlice = (controls.count + slices - 1) / max(slices, 1)
        logger.info("hub.draining", metadata: ["connections": "\(controls.count)", "spread": "\(limits.connections.shutdownSpread)"])
        for slice in 0..<slices where perSlice > 0 {
            if slice > 0 { try? await Task.sleep(until: start + spread * (Double(slice) / Double(slices)), clock: .continuous) }
            for control in controls.dropFirst(slice * perSlice).prefix(perSlice) {
                control.close(.reconnectImmediately, at: clock.now)
            }
        }
        let deadline = ContinuousClock.now + .seconds(limits.connections.closeTimeout) + .seconds(1)
        while await registry.count > 0, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { break }
        }
    }

    /// Closes this node's connections of `appID` signed in as `userID` with 4009, and returns
    /// how many there were; for ``HubConnectionLimits/terminationGracePeriod`` the user may not sign in
    /// again on this node. (The HTTP API also relays the request to the other nodes.)
    @discardableResult
    func closeUserConnections(appID: String, userID: String, gracePeriod: Double? = nil) async -> Int {
        terminatedUsers.record(appID: appID, userID: userID, period: .seconds(gracePeriod ?? limits.connections.terminationGracePeriod), now: clock.now)
        return await closeConnections(
            appID: appID, userID: userID, .unauthorized, reason: "Connection terminated: the app ended this user's connections",
            event: "hub.user.terminated")
    }

    /// Closes this node's connections of `appID` (only those signed in as `userID`, and only
    /// those that connected with the app key `key`, when given) with `code` and `reason`, logs
    /// `event` when there were any, and returns how many.
    func closeConnections(appID: String, userID: String? = nil, key: String? = nil, _ code: HubCloseCode, reason: String, event: Logger.Message) async -> Int {
        let controls = await registry.controls(appID: appID, userID: userID, key: key)
        for control in controls { control.close(code, reason: reason, at: clock.now) }
        if !controls.isEmpty {
            logger.info(event, metadata: ["app_id": "\(appID)", "code": "\(code.rawValue)", "connections": "\(controls.count)"])
        }
        return controls.count
    }

    /// Carries out the terminations other nodes relay, until the stream ends (the hub stops, or
    /// it has no other node) or the task is cancelled.
    func runUserTerminations() async {
        for await termination in channels.userTerminations {
            await closeUserConnections(appID: termination.appID, userID: termination.userID, gracePeriod: termination.gracePeriod)
        }
    }

    /// A node of a cluster whose drivers keep no history (``ClusterDrivers/history``) refuses an
    /// app with a history (each node would number the events apart), at start and at a reload.
    static func refuseHistory(of apps: [HubAppConfiguration], cluster: ClusterDrivers?) throws(HubConfigurationError) {
        guard let cluster, cluster.history == nil, let app = apps.first(where: { $0.history != nil }) else { return }
        throw .invalidHistory(
            appID: app.id,
            reason: "this cluster's drivers keep no channel history (each node would number the events apart): remove \"history\", or run the hub on its own or on PostgreSQL")
    }

    /// What the channel history keeps for the apps of `configuration`, under its limits.
    static func historySettings(_ configuration: HubConfiguration) -> ChannelHistory.Settings {
        let (apps, limits) = (configuration.apps, configuration.limits)
        let maxBytes = limits.channels.maxHistoryBytes
        return ChannelHistory.Settings(
            apps: Dictionary(apps.compactMap { app in app.history.map { (app.id, $0) } }, uniquingKeysWith: { first, _ in first }),
            maxBytes: maxBytes, maxBytesPerApp: limits.appPart(of: maxBytes, apps: configuration.sharingApps))
    }

    /// Drops the history's expired events and idle channels once a second while an app keeps a
    /// history (once a minute otherwise: a reload may add one), until cancelled. The bounds of
    /// bytes hold between rounds (each event checks them), and a resume checks `ttl` itself. On
    /// a cluster that keeps the history, each round also reads the events that have waited a
    /// round for an earlier one, and every 5 s the cluster's history drops what it no longer keeps.
    func runHistoryPurge() async {
        var schedule = TickSchedule(start: madeAt)
        var previous: ContinuousClock.Instant?
        var maintained = clock.now
        while !Task.isCancelled {
            let interval: Duration = apps.byID.values.contains { $0.configuration.history != nil } ? .seconds(1) : .seconds(60)
            do { try await clock.sleep(until: schedule.next(every: interval, now: clock.now)) } catch { return }
            let now = clock.now
            await channels.purgeHistory(waitingSince: previous)
            previous = now
            if now - maintained >= .seconds(5) {
                maintained = now
                await channels.maintainClusterHistory()
            }
        }
    }

    /// The apps whose channels tell their subscription counts.
    var countedApps: Set<String> {
        Set(apps.byID.values.lazy.filter(\.configuration.subscriptionCount).map(\.id))
    }

    /// Has the channel state send the subscription counts that are due, four times a second while an
    /// app counts, until cancelled.
    func runSubscriptionCounts() async {
        await channels.countSubscriptions(ofApps: countedApps)
        var schedule = TickSchedule(start: madeAt)
        while !Task.isCancelled {
            do { try await clock.sleep(until: schedule.next(every: .milliseconds(250), now: clock.now)) } catch { return }
            guard apps.byID.values.contains(where: \.configuration.subscriptionCount) else { continue }
            await channels.flushSubscriptionCounts()
        }
    }

    /// Cuts the refused clients and slow readers whose close handshake ran out
    /// (``PendingDisconnects``), checking four times per ``HubConnectionLimits/closeTimeout`` (at least
    /// every second, at most every 50 ms), until cancelled. Apart from ``runTicker()``, which
    /// visits every connection and so ticks no faster than their liveness timers need: a flood of
    /// refused clients is cut on time without the hub's connections paying for it.
    func runPendingDisconnects() async {
        let interval = min(max(.seconds(limits.connections.closeTimeout) / 4, .milliseconds(50)), .seconds(1))
        var schedule = TickSchedule(start: madeAt)
        while !Task.isCancelled {
            do { try await clock.sleep(until: schedule.next(every: interval, now: clock.now)) } catch { return }
            pendingDisconnects.closeDue(at: clock.now)
        }
    }

    /// Ticks every connection's timers at the pace the shortest of them needs, until cancelled.
    /// One task for the whole hub, not one per connection.
    /// The ticks keep to a grid from when the hub was made (``TickSchedule``), so a tick that is
    /// due when the loop comes to sleep happens at once, and one that came late does not push
    /// the next ones later.
    func runTicker() async {
        var schedule = TickSchedule(start: madeAt)
        while !Task.isCancelled {
            // The apps' authorization deadlines count too, as a reload leaves them.
            let shortest = apps.byID.values.compactMap(\.configuration.authorizationTimeout).min()
            let interval = ConnectionTimers.Settings(limits: limits, authorizationTimeout: shortest).tickInterval
            do { try await clock.sleep(until: schedule.next(every: interval, now: clock.now)) } catch { return }
            let now = clock.now
            for control in await registry.controls { control.tick(at: now) }
        }
    }

    private func evaluate(path: String) -> Result<(HubApp, Int), HubCloseCode> {
        let request: ConnectionRequest
        do {
            request = try ConnectionRequest(path: path)
        } catch {
            return .failure(error)
        }
        guard let app = apps.byKey[request.appKey] else { return .failure(.appDoesNotExist) }
        guard app.configuration.enabled else { return .failure(.appDisabled) }
        return .success((app, request.protocolVersion))
    }
}
