/// Decides `channel_occupied` and `channel_vacated`, `member_added` and `member_removed` once
/// for a whole cluster (each node knows only its own connections for sure): a node records when
/// a channel gains its first subscriber on it and loses its last, and when a user gains their
/// first connection in a presence channel on it and loses their last; the occupancy emits the
/// webhook when the first node of the cluster gains the channel (or the member) and when the
/// last one loses it, also when that node died. Two nodes changing at the same moment make one
/// event, never none and never two.
public protocol ClusterOccupancy: Sendable {
    /// Records a change of this node's share; never waits.
    func record(_ change: ChannelOccupancyChange)

    /// Decides, and emits through `webhooks`, until ``stop(timeout:)``.
    func run(emitting webhooks: any WebhookEmitter) async

    /// Records what is pending (at most `timeout` long) and ends ``run(emitting:)``.
    func stop(timeout: Duration) async
}

/// A channel that gained its first subscriber on a node, or lost its last; a presence member
/// who gained their first connection in the channel on a node, or lost their last.
public enum ChannelOccupancyChange: Sendable, Hashable {
    /// The node has a subscriber of the channel now.
    case occupied(appID: String, channel: String)
    /// The node has no subscriber of the channel any more.
    case vacated(appID: String, channel: String)
    /// The user has a connection in the presence channel on the node now.
    case joined(appID: String, channel: String, userID: String)
    /// The user has no connection in the presence channel on the node any more.
    case left(appID: String, channel: String, userID: String)

    /// The app, the channel and, for a member, the user.
    public var place: (appID: String, channel: String, userID: String?) {
        switch self {
        case let .occupied(appID, channel), let .vacated(appID, channel): (appID, channel, nil)
        case let .joined(appID, channel, userID), let .left(appID, channel, userID): (appID, channel, userID)
        }
    }

    /// Whether the node gained the channel or the member (else it lost it).
    public var isGain: Bool {
        switch self {
        case .occupied, .joined: true
        case .vacated, .left: false
        }
    }

    /// The webhook event of the cluster's first gain (or last loss) of this place.
    public var event: WebhookEvent {
        switch self {
        case let .occupied(_, channel): .channelOccupied(channel: channel)
        case let .vacated(_, channel): .channelVacated(channel: channel)
        case let .joined(_, channel, userID): .memberAdded(channel: channel, userID: userID)
        case let .left(_, channel, userID): .memberRemoved(channel: channel, userID: userID)
        }
    }

    /// The loss of `place` (what a dead node's rows become).
    public static func loss(appID: String, channel: String, userID: String?) -> ChannelOccupancyChange {
        userID.map { .left(appID: appID, channel: channel, userID: $0) } ?? .vacated(appID: appID, channel: channel)
    }
}
