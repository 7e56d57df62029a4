/// One app's limits: its own where its configuration sets them (``HubAppConfiguration``'s
/// `maxConnections`, `maxPresenceMembers`, `clientEventsPerSecond`, `backendEventsPerSecond`,
/// `readRequestsPerSecond`), the hub's (``HubLimits``) otherwise.
struct HubAppLimits: Sendable, Hashable {
    /// Most simultaneous connections of the app; nil: only the hub's limit.
    let maxConnections: Int?
    /// Most distinct users in one of the app's presence channels.
    let maxPresenceMembers: Int
    /// Client events one connection may send per second.
    let clientEventsPerSecond: Int
    /// Events the HTTP API may publish per second (each channel an event names counts); nil: no limit.
    let backendEventsPerSecond: Int?
    /// Reads of the HTTP API (channels, a channel, its users) per second; nil: no limit.
    let readRequestsPerSecond: Int?

    init(app: HubAppConfiguration, hub: HubLimits) {
        maxConnections = app.maxConnections
        maxPresenceMembers = app.maxPresenceMembers ?? hub.channels.maxPresenceMembers
        clientEventsPerSecond = app.clientEventsPerSecond ?? hub.channels.clientEventsPerSecond
        backendEventsPerSecond = app.backendEventsPerSecond ?? hub.httpAPI.backendEventsPerSecond
        readRequestsPerSecond = app.readRequestsPerSecond ?? hub.httpAPI.readRequestsPerSecond
    }
}
