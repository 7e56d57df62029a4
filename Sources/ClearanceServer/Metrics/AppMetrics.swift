import CoreMetrics

/// One app's metric handles, made once (``HubMetrics/app(_:)``) and kept by each of its
/// connections: counting is an atomic add, with no lookup.
struct AppMetrics: Sendable {
    /// `clearance_connections{app_id}`: admitted and open.
    let connections: Meter
    /// `clearance_connections_total{app_id}`: admitted.
    let connectionsOpened: Counter
    /// `clearance_messages_received_total{app_id}`: messages read from clients.
    let messagesReceived: Counter
    /// `clearance_messages_sent_total{app_id}`: frames written to clients.
    let messagesSent: Counter
    /// `clearance_app_refused_total{app_id,what="connections"}`: connections refused at the
    /// app's part of the hub's connections (4004).
    let connectionsRefused: Counter
    /// `clearance_app_refused_total{app_id,what="unauthorized_per_ip"}`: connections refused
    /// because their address held ``HubConnectionLimits/maxUnauthorizedConnectionsPerIP`` (4100).
    let unauthorizedRefused: Counter
    /// `clearance_app_refused_total{app_id,what="subscriptions"}`: subscriptions refused at the
    /// app's part of the hub's subscriptions (503).
    let subscriptionsRefused: Counter
    /// `clearance_app_refused_total{app_id,what="backplane"}`: the app's events a cluster node
    /// dropped at the app's part of its queue of unsent messages.
    let backplaneRefused: Counter

    init(appID: String, factory: any MetricsFactory) {
        let dimensions = [("app_id", appID)]
        connections = Meter(label: "clearance_connections", dimensions: dimensions, factory: factory)
        connectionsOpened = Counter(label: "clearance_connections_total", dimensions: dimensions, factory: factory)
        messagesReceived = Counter(label: "clearance_messages_received_total", dimensions: dimensions, factory: factory)
        messagesSent = Counter(label: "clearance_messages_sent_total", dimensions: dimensions, factory: factory)
        connectionsRefused = Counter(label: "clearance_app_refused_total", dimensions: dimensions + [("what", "connections")], factory: factory)
        unauthorizedRefused = Counter(label: "clearance_app_refused_total", dimensions: dimensions + [("what", "unauthorized_per_ip")], factory: factory)
        subscriptionsRefused = Counter(label: "clearance_app_refused_total", dimensions: dimensions + [("what", "subscriptions")], factory: factory)
        backplaneRefused = Counter(label: "clearance_app_refused_total", dimensions: dimensions + [("what", "backplane")], factory: factory)
        connections.set(0)
    }
}
