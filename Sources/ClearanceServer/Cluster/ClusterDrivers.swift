/// What makes a hub a node of a cluster: how the nodes reach each other, who decides a
/// channel's occupancy for them all, and where webhook events wait (so that another node
/// delivers what a dead one queued). Give it to ``HubService/init(configuration:cluster:logger:onReady:additionalRoutes:counters:webhookQueue:metrics:reloader:clock:)``.
public struct ClusterDrivers: Sendable {
    /// How the nodes reach each other.
    public let transport: any ClusterTransport
    /// Who decides `channel_occupied` and `channel_vacated` for the cluster; nil: each node
    /// decides them from its own view of the cluster (an engine without a shared store: a node
    /// may then send one twice, or none, when two nodes gain or lose a channel at the same moment).
    public let occupancy: (any ClusterOccupancy)?
    /// The webhook queue for a hub with `limits`, or nil for the hub's memory.
    public let webhookQueue: @Sendable (HubLimits) -> (any WebhookQueue)?
    /// Where the channels' histories are kept for the cluster (connection recovery); nil: the
    /// nodes refuse apps with a `history`. `PostgresCluster`'s drivers have one.
    package let history: (any ClusterHistory)?
    /// Where the events apps publish from their own transactions wait (`clearance_publish`);
    /// nil: none.
    package let outbox: (any ClusterOutbox)?

    /// A cluster's drivers.
    public init(
        transport: any ClusterTransport, occupancy: (any ClusterOccupancy)? = nil,
        webhookQueue: @escaping @Sendable (HubLimits) -> (any WebhookQueue)? = { _ in nil }
    ) {
        self.transport = transport
        self.occupancy = occupancy
        self.webhookQueue = webhookQueue
        history = nil
        outbox = nil
    }

    /// A cluster's drivers, with the channels' histories kept in `history` and the apps'
    /// transactional events in `outbox`.
    package init(
        transport: any ClusterTransport, occupancy: (any ClusterOccupancy)? = nil, history: (any ClusterHistory)?,
        outbox: (any ClusterOutbox)? = nil, webhookQueue: @escaping @Sendable (HubLimits) -> (any WebhookQueue)? = { _ in nil }
    ) {
        self.transport = transport
        self.occupancy = occupancy
        self.webhookQueue = webhookQueue
        self.history = history
        self.outbox = outbox
    }
}
