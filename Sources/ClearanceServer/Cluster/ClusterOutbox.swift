/// Events an app published from inside its own database transaction (the outbox), which the
/// cluster delivers once they are committed: the hub hands each to its HTTP API's rules
/// (``Hub/publishFromOutbox(_:)``) and says what became of it. `PostgresOutbox` (the
/// ClearanceServerPostgres module, `clearance_publish(…)`) is one.
package protocol ClusterOutbox: Sendable {
    /// Hands the committed events to `publish`, in the order each channel's were committed,
    /// until cancelled: one node of the cluster at a time. An event `publish` delivered or
    /// rejected is removed (a rejected one kept aside with its reason); one it asks to retry stays
    /// first in line.
    func run(publish: @escaping @Sendable (OutboxEvent) async -> OutboxOutcome) async
}

/// An event of the outbox: what `POST /apps/{id}/events` would carry.
package struct OutboxEvent: Sendable, Equatable {
    package let id: Int64
    package let appID: String
    package let channels: [String]
    package let name: String
    package let data: String
    package let socketID: String?

    package init(id: Int64, appID: String, channels: [String], name: String, data: String, socketID: String?) {
        self.id = id
        self.appID = appID
        self.channels = channels
        self.name = name
        self.data = data
        self.socketID = socketID
    }
}

/// What became of an outbox event.
package enum OutboxOutcome: Sendable, Equatable {
    /// Delivered to its channels' subscribers.
    case delivered
    /// Never deliverable (an unknown app, a bad channel or event name, data too large): set aside
    /// with `reason`, never retried.
    case rejected(reason: String)
    /// Not now (its app past its rate, its history's database away): retried, the events behind
    /// it waiting.
    case retryLater
}
