import Clearance
import CoreMetrics
import Prometheus

/// The hub's metrics, in a Prometheus registry of its own (never the process-wide
/// `MetricsSystem`: several hubs in one process, as in tests, each count their own), written
/// through swift-metrics' `Counter` and `Meter` with a `PrometheusMetricsFactory` on that
/// registry. ``HubMetricsService`` serves them at `/metrics`.
///
/// The families (their names are stable):
/// - `clearance_connections{app_id}` (gauge): WebSocket connections admitted and open;
/// - `clearance_connections_total{app_id}`, `clearance_messages_received_total{app_id}`,
///   `clearance_messages_sent_total{app_id}` (counters): connections admitted, messages read from
///   clients, frames written to them (each delivery, replies and errors included);
/// - `clearance_http_requests_total{app_id,status}`: HTTP API requests by answer (`app_id` empty
///   for a path naming no app);
/// - `clearance_webhooks_total{app_id,result}`: webhook events `delivered`, `failed` (in a POST
///   that failed: retried until the window is over) or `dropped` (always under the app whose
///   events were dropped);
/// - `clearance_app_refused_total{app_id,what}`: what an app was refused at its own bound:
///   `connections`, `unauthorized_per_ip`, `subscriptions`, and `backplane` (its events dropped
///   at its part of a cluster node's queue of unsent messages, bridged when scraped);
/// - `clearance_backplane_dropped_total`: messages a cluster node dropped because its queue of
///   unsent messages was full (bridged when scraped);
/// - `clearance_connections_refused_total{reason}`: `descriptors`, `http_limit`,
///   `address_limit` (closed at accept), `origin` (403 before the upgrade), `limit`,
///   `app_limit`, `unauthorized_address`, `shutdown`, `request` (closed after it): the hub's ``HubCounters``, bridged
///   when scraped;
/// - `clearance_resumes_total{result}`: subscriptions that resumed a channel with a history,
///   `recovered` (every missed event sent) or `not_recovered`; `clearance_history_events` (gauge):
///   the events the history keeps;
/// - `clearance_backplane_connected` (gauge): 1 while the cluster's backplane is connected, 0
///   otherwise (and without one);
/// - `clearance_apps_refused` (gauge): the apps of the apps database whose row this hub refuses
///   now (`clearance serve --apps-database`; 0 otherwise);
/// - the other ``HubCounter``s as `clearance_<raw value>_total`, the ``HubGauge``s as
///   `clearance_<raw value>`.
///
/// Counting costs an atomic add on a handle made once (per app at admission), never a lookup or
/// an allocation per message.
public final class HubMetrics: Sendable {
    /// Which ``HubCounter`` is which `reason` of `clearance_connections_refused_total`.
    static let refusalReasons: [HubCounter: String] = [
        .socketsRefusedAtDescriptorBudget: "descriptors",
        .socketsRefusedAtHTTPLimit: "http_limit",
        .socketsRefusedAtAddressLimit: "address_limit",
        .webSocketsRefusedAtOrigin: "origin",
        .connectionsRefusedAtHubLimit: "limit",
        .connectionsRefusedAtAppLimit: "app_limit",
        .connectionsRefusedShuttingDown: "shutdown",
        .connectionsRefusedUnauthorizedAtAddress: "unauthorized_address",
        .connectionsRefusedAtRequest: "request",
    ]

    /// Which ``HubCounter`` is which `result` of `clearance_resumes_total`.
    static let resumeResults: [HubCounter: String] = [.resumesRecovered: "recovered", .resumesNotRecovered: "not_recovered"]

    private struct Bridge {
        var counters: HubCounters?
        var exported: [HubCounter: Int] = [:]
        var backplaneDrops: (@Sendable () -> BackplaneDrops)?
        var exportedDrops = BackplaneDrops(total: 0, byApp: [:])
    }

    /// What a cluster node's queue of unsent messages dropped so far: in all, and each app's
    /// events dropped at its part of the queue.
    public struct BackplaneDrops: Sendable, Hashable {
        /// Messages dropped in all.
        public var total: Int
        /// Each app's events dropped at its part of the queue.
        public var byApp: [String: Int]

        /// Drops counted so far.
        public init(total: Int, byApp: [String: Int]) {
            self.total = total
            self.byApp = byApp
        }
    }

    private struct HTTPKey: Hashable {
        let appID: String
        let status: Int
    }

    private struct WebhookKey: Hashable {
        let appID: String
        let result: WebhookMetricResult
    }

    /// The registry the metrics are in (what `/metrics` writes out).
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let hubCounters: [HubCounter: CoreMetrics.Counter]
    private let hubGauges: [HubGauge: Meter]
    private let backplane: Meter
    private let refusedApps: Meter
    private let backplaneDropped: CoreMetrics.Counter
    private let apps = Locked([String: AppMetrics]())
    private let httpRequests = Locked([HTTPKey: CoreMetrics.Counter]())
    private let webhookCounters = Locked([WebhookKey: CoreMetrics.Counter]())
    private let bridged = Locked(Bridge())
    private let ready = Locked(false)

    /// - Parameter registry: Where the metrics go; a new registry by default (one per hub).
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        let factory = PrometheusMetricsFactory(registry: registry)
        self.factory = factory
        var counters: [HubCounter: CoreMetrics.Counter] = [:]
        for counter in HubCounter.allCases {
            if let reason = Self.refusalReasons[counter] {
                counters[counter] = CoreMetrics.Counter(label: "clearance_connections_refused_total", dimensions: [("reason", reason)], factory: factory)
            } else if let result = Self.resumeResults[counter] {
                counters[counter] = CoreMetrics.Counter(label: "clearance_resumes_total", dimensions: [("result", result)], factory: factory)
            } else {
                counters[counter] = CoreMetrics.Counter(label: "clearance_\(counter.rawValue)_total", factory: factory)
            }
        }
        hubCounters = counters
        hubGauges = Dictionary(uniqueKeysWithValues: HubGauge.allCases.map { ($0, Meter(label: "clearance_\($0.rawValue)", factory: factory)) })
        backplane = Meter(label: "clearance_backplane_connected", factory: factory)
        backplane.set(0)
        refusedApps = Meter(label: "clearance_apps_refused", factory: factory)
        refusedApps.set(0)
        backplaneDropped = CoreMetrics.Counter(label: "clearance_backplane_dropped_total", factory: factory)
    }

    /// Whether the hub accepts connections: true once it listens, false again from the moment
    /// it begins shutting down (`/ready` answers 503 then).
    public var isReady: Bool { ready.withLock { $0 } }

    /// Sets `clearance_backplane_connected`: call it as the backplane connects and disconnects
    /// (`clearance serve` follows its cluster transport's states).
    public func backplaneConnected(_ connected: Bool) {
        backplane.set(connected ? 1 : 0)
    }

    /// Sets `clearance_apps_refused`: how many apps of the apps database this hub refuses now
    /// (their rows do not validate; `clearance serve --apps-database` follows its watcher).
    public func appsRefused(_ count: Int) {
        refusedApps.set(Double(count))
    }

    /// The Prometheus text exposition of every metric, the hub's counters brought up to date first.
    public func exposition() -> String {
        collect()
        return registry.emitToString()
    }

    /// Writes the exposition into `buffer` (reused between scrapes).
    func emit(into buffer: inout [UInt8]) {
        collect()
        registry.emit(into: &buffer)
    }

    /// The hub started or stopped accepting connections.
    func accepting(_ accepting: Bool) {
        ready.withLock { $0 = accepting }
    }

    /// Reads `counters` (the hub's) when scraped.
    func bridge(_ counters: HubCounters) {
        bridged.withLock { $0.counters = counters }
    }

    /// Reads a cluster node's drops when scraped (`clearance serve` gives its
    /// `PostgresChannelState`'s): `clearance_backplane_dropped_total` and
    /// `clearance_app_refused_total{app_id,what="backplane"}`.
    public func bridgeBackplaneDrops(_ read: @escaping @Sendable () -> BackplaneDrops) {
        bridged.withLock { $0.backplaneDrops = read }
    }

    /// The handles of app `id`, made on first use (the hub makes them for each configured app,
    /// so that their series read 0 before anything happens).
    func app(_ id: String) -> AppMetrics {
        apps.withLock { apps in
            if let metrics = apps[id] { return metrics }
            let metrics = AppMetrics(appID: id, factory: factory)
            apps[id] = metrics
            return metrics
        }
    }

    /// One HTTP API request of `appID` (nil: the path named no app) answered with `status`.
    func httpRequest(appID: String?, status: Int) {
        let key = HTTPKey(appID: appID ?? "", status: status)
        let counter = httpRequests.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(
                label: "clearance_http_requests_total", dimensions: [("app_id", key.appID), ("status", "\(status)")], factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    /// `count` webhook events of `appID` with `result`.
    func webhooks(appID: String, _ result: WebhookMetricResult, count: Int) {
        guard count > 0 else { return }
        let key = WebhookKey(appID: appID, result: result)
        let counter = webhookCounters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(
                label: "clearance_webhooks_total", dimensions: [("app_id", appID), ("result", result.rawValue)], factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment(by: count)
    }

    /// Brings the bridged counters and gauges up to the hub's ``HubCounters``.
    private func collect() {
        let (counters, deltas) = bridged.withLock { bridge -> (HubCounters?, [HubCounter: Int]) in
            guard let counters = bridge.counters else { return (nil, [:]) }
            var deltas: [HubCounter: Int] = [:]
            for (counter, value) in counters.snapshot {
                let delta = value - bridge.exported[counter, default: 0]
                if delta > 0 { deltas[counter] = delta }
                bridge.exported[counter] = value
            }
            return (counters, deltas)
        }
        for (counter, delta) in deltas { hubCounters[counter]?.increment(by: delta) }
        collectBackplaneDrops()
        guard let counters else { return }
        for (gauge, meter) in hubGauges { meter.set(counters.gauge(gauge)) }
    }

    /// Brings the backplane's drop counters up to what the node reports.
    private func collectBackplaneDrops() {
        let (total, byApp) = bridged.withLock { bridge -> (Int, [String: Int]) in
            guard let read = bridge.backplaneDrops else { return (0, [:]) }
            let now = read()
            let total = max(0, now.total - bridge.exportedDrops.total)
            var byApp: [String: Int] = [:]
            for (appID, dropped) in now.byApp {
                let delta = dropped - bridge.exportedDrops.byApp[appID, default: 0]
                if delta > 0 { byApp[appID] = delta }
            }
            bridge.exportedDrops = now
            return (total, byApp)
        }
        if total > 0 { backplaneDropped.increment(by: total) }
        for (appID, delta) in byApp { app(appID).backplaneRefused.increment(by: delta) }
    }
}
