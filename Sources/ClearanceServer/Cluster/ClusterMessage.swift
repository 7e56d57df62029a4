import ClearanceSigning

/// What one node of a cluster tells the others: events for their subscribers, and changes of
/// its own state (subscription counts, presence, who is online), which the hub's channel state
/// decides and applies. A ``ClusterTransport`` carries them without reading them: it needs only
/// ``line`` and ``init(line:)``, and for bounding, ``floodingAppID`` and ``changesState``.
///
/// A node's state travels as absolute facts (a channel's subscription count, a member who
/// joined or left), so applying one twice does no harm. After its link is (re)established a
/// node says `hello` (every node answers with its whole state) and sends its own whole state
/// between `sync-begin` and `sync-end`, which replaces whatever the others knew of it.
public struct ClusterMessage: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// A frame for the channel's subscribers on every node, except the socket `excluding`.
        case event(appID: String, channel: String, frame: String, excluding: String?)
        /// A change of the sender's own state.
        case change(ChannelTable.Change)
        /// The sender (re)connected: every node sends its whole state.
        case hello
        /// What follows, until `syncEnd`, is the sender's whole state.
        case syncBegin
        /// The end of the sender's whole state.
        case syncEnd
        /// The sender leaves the cluster: forget its state.
        case bye
        /// Close every connection of the app signed in as the user, and refuse the user for
        /// the grace period (the app's `terminate_connections`).
        case terminate(UserTermination)
        /// An event triggered on a cache channel: delivered to the channel's subscribers on every
        /// node (except the socket `excluding`) and kept by every node as the channel's last event.
        case triggered(appID: String, channel: String, entry: EventCache.Entry, excluding: String?)
        /// A cache channel's last event, kept and not delivered (part of a node's whole state).
        case cached(appID: String, channel: String, entry: EventCache.Entry)
    }

    package let kind: Kind

    package init(_ kind: Kind) {
        self.kind = kind
    }

    package static let hello = ClusterMessage(.hello)
    package static let syncBegin = ClusterMessage(.syncBegin)
    package static let syncEnd = ClusterMessage(.syncEnd)
    package static let bye = ClusterMessage(.bye)

    package static func event(appID: String, channel: String, frame: String, excluding: String?) -> ClusterMessage {
        ClusterMessage(.event(appID: appID, channel: channel, frame: frame, excluding: excluding))
    }

    package static func change(_ change: ChannelTable.Change) -> ClusterMessage {
        ClusterMessage(.change(change))
    }

    package static func terminate(appID: String, userID: String, gracePeriod: Double = 60) -> ClusterMessage {
        ClusterMessage(.terminate(UserTermination(appID: appID, userID: userID, gracePeriod: gracePeriod)))
    }

    package static func terminate(_ termination: UserTermination) -> ClusterMessage {
        ClusterMessage(.terminate(termination))
    }

    package static func triggered(appID: String, channel: String, entry: EventCache.Entry, excluding: String?) -> ClusterMessage {
        ClusterMessage(.triggered(appID: appID, channel: channel, entry: entry, excluding: excluding))
    }

    package static func cached(appID: String, channel: String, entry: EventCache.Entry) -> ClusterMessage {
        ClusterMessage(.cached(appID: appID, channel: channel, entry: entry))
    }

    /// The termination this message asks for, if it is one (a transport may keep terminations
    /// apart: they are state for their grace period, also for a node that was away).
    public var termination: UserTermination? {
        if case let .terminate(termination) = kind { termination } else { nil }
    }

    /// Whether this message changes no node's state (an event, a termination, a cache entry):
    /// a transport that drops one owes no resynchronization; a transport that drops any other
    /// must later send the node's whole state again (``ClusterInbox/sendWholeState(_:)``).
    public var changesState: Bool {
        switch kind {
        case .event, .terminate, .triggered, .cached: false
        default: true
        }
    }

    /// The app whose clients or backend sent this event (what an app can send in floods, and
    /// what a bounded transport may drop at the app's part of its queue); nil for the others.
    public var floodingAppID: String? {
        switch kind {
        case let .event(appID, _, _, _), let .triggered(appID, _, _, _): appID
        default: nil
        }
    }
}
