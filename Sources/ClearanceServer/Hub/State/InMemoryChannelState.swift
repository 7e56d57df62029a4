import ClearanceSigning

/// Channel state for a single hub process: everything in one actor's memory.
///
/// Deliveries are queued on the connections' outboxes while the actor is isolated, so every
/// connection sees a channel's events in the order the actor processed them.
public actor InMemoryChannelState: ChannelStateAdapter {
    private struct Channel {
        var subscribers: [String: ConnectionOutbox] = [:]
        /// Present for presence channels only.
        var roster: PresenceRoster?
    }

    private struct Connection {
        let appID: String
        let outbox: ConnectionOutbox
        var channels: Set<String> = []
    }

    private struct ChannelKey: Hashable {
        let appID: String
        let name: String
    }

    private var connections: [String: Connection] = [:]
    private var channels: [ChannelKey: Channel] = [:]
    private var channelNamesByApp: [String: Set<String>] = [:]

    /// Creates empty state.
    public init() {}

    public func addConnection(socketID: String, appID: String, outbox: ConnectionOutbox) {
        connections[socketID] = Connection(appID: appID, outbox: outbox)
    }

    public func removeConnection(socketID: String, appID: String) {
        guard let connection = connections.removeValue(forKey: socketID) else { return }
        for name in connection.channels {
            leave(socketID: socketID, key: ChannelKey(appID: appID, name: name))
        }
    }

    public func subscribe(
        socketID: String,
        appID: String,
        channel name: String,
        member: PresenceMember?,
        maxPresenceMembers: Int
    ) -> SubscribeOutcome {
        guard var connection = connections[socketID], connection.appID == appID else { return .unknownConnection }
        let key = ChannelKey(appID: appID, name: name)
        var channel = channels[key] ?? Channel()
        if channel.subscribers[socketID] != nil {
            connection.outbox.deliver(.subscriptionSucceeded(channel: name, members: channel.roster?.members))
            return .alreadySubscribed
        }

        var newMember: PresenceMember?
        if let member {
            var roster = channel.roster ?? PresenceRoster()
            switch roster.join(socketID: socketID, member: member, limit: maxPresenceMembers) {
            case .full:
                return .presenceChannelFull
            case .newMember:
                newMember = member
            case .additionalConnection, .alreadyJoined:
                break
            }
            channel.roster = roster
        }

        channel.subscribers[socketID] = connection.outbox
        channels[key] = channel
        channelNamesByApp[appID, default: []].insert(name)
        connection.channels.insert(name)
        connections[socketID] = connection

        connection.outbox.deliver(.subscriptionSucceeded(channel: name, members: channel.roster?.members))
        if let newMember {
            for (otherID, outbox) in channel.subscribers where otherID != socketID {
                outbox.deliver(.memberAdded(channel: name, member: newMember))
            }
        }
        return .subscribed
    }

    public func unsubscribe(socketID: String, appID: String, channel name: String) {
        guard var connection = connections[socketID], connection.channels.remove(name) != nil else { return }
        connections[socketID] = connection
        leave(socketID: socketID, key: ChannelKey(appID: appID, name: name))
    }

    public func publish(appID: String, channel name: String, frame: String, excluding excludedSocketID: String?) {
        guard let channel = channels[ChannelKey(appID: appID, name: name)] else { return }
        let delivery = ConnectionOutbox.Delivery.frame(frame)
        for (socketID, outbox) in channel.subscribers where socketID != excludedSocketID {
            outbox.deliver(delivery)
        }
    }

    public func channels(appID: String) -> [ChannelSnapshot] {
        (channelNamesByApp[appID] ?? []).sorted().compactMap { channel(appID: appID, name: $0) }
    }

    public func channel(appID: String, name: String) -> ChannelSnapshot? {
        guard let channel = channels[ChannelKey(appID: appID, name: name)], !channel.subscribers.isEmpty else { return nil }
        return ChannelSnapshot(name: name, subscriptionCount: channel.subscribers.count, userCount: channel.roster?.count)
    }

    public func presenceMembers(appID: String, channel name: String) -> [PresenceMember] {
        channels[ChannelKey(appID: appID, name: name)]?.roster?.members ?? []
    }

    private func leave(socketID: String, key: ChannelKey) {
        guard var channel = channels[key], channel.subscribers.removeValue(forKey: socketID) != nil else { return }
        var departedUser: String?
        if var roster = channel.roster {
            if case let .memberLeft(userID) = roster.leave(socketID: socketID) { departedUser = userID }
            channel.roster = roster
        }
        if channel.subscribers.isEmpty {
            channels[key] = nil
            channelNamesByApp[key.appID]?.remove(key.name)
            if channelNamesByApp[key.appID]?.isEmpty == true { channelNamesByApp[key.appID] = nil }
        } else {
            channels[key] = channel
        }
        if let departedUser {
            for outbox in channel.subscribers.values {
                outbox.deliver(.memberRemoved(channel: key.name, userID: departedUser))
            }
        }
    }
}
