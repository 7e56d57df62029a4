/// How much a ``WebhookQueue`` may hold: events and bytes for the whole hub, and for each app
/// (so that one app's flood, or its receiver being down, never drops another app's events).
/// Past an app's bound its own oldest events go; past the hub's, the oldest of the app that
/// holds the most bytes.
public struct WebhookQueueBounds: Sendable, Hashable {
    /// Most events queued for all apps.
    public var maxEvents: Int
    /// Most bytes queued for all apps (each event counted by ``QueuedWebhookEvent/bytes``).
    public var maxBytes: Int
    /// Most events queued for one app.
    public var maxEventsPerApp: Int
    /// Most bytes queued for one app.
    public var maxBytesPerApp: Int

    /// Creates bounds; each per-app bound is at most its hub-wide one.
    public init(maxEvents: Int, maxBytes: Int, maxEventsPerApp: Int, maxBytesPerApp: Int) {
        self.maxEvents = max(1, maxEvents)
        self.maxBytes = max(1, maxBytes)
        self.maxEventsPerApp = max(1, min(maxEventsPerApp, maxEvents))
        self.maxBytesPerApp = max(1, min(maxBytesPerApp, maxBytes))
    }

    /// The bounds `limits` set for a hub serving `apps` apps (``HubConnectionLimits/appShare`` of each
    /// budget per app when there is more than one).
    public init(limits: HubLimits, apps: Int) {
        self.init(
            maxEvents: limits.webhooks.maxQueuedWebhooks, maxBytes: limits.webhooks.maxQueuedWebhookBytes,
            maxEventsPerApp: limits.appPart(of: limits.webhooks.maxQueuedWebhooks, apps: apps),
            maxBytesPerApp: limits.appPart(of: limits.webhooks.maxQueuedWebhookBytes, apps: apps))
    }
}

/// Events a ``WebhookQueue`` dropped to stay within its ``WebhookQueueBounds``, per app.
public struct WebhookDrops: Sendable, Hashable {
    /// Events dropped, by the id of the app they belonged to.
    public var byApp: [String: Int]

    /// Creates a record of drops.
    public init(byApp: [String: Int] = [:]) {
        self.byApp = byApp.filter { $0.value > 0 }
    }

    /// Every event dropped.
    public var total: Int { byApp.values.reduce(0, +) }
}
