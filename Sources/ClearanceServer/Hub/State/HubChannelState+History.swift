import ClearanceWire

/// Connection recovery on a cluster whose drivers keep the channels' histories
/// (``ClusterDrivers/history``): an event is numbered and kept there before any node delivers
/// it, each node delivers a channel's events in serial order (``ChannelTable/accept(_:policy:)``),
/// and a resume replays what the cluster's history keeps, then what reached this node since.
extension HubChannelState {
    /// The channel's history settings, when its app keeps one and the cluster keeps it.
    private func clusterHistory(appID: String, channel: String) -> (any ClusterHistory, ChannelHistoryConfiguration)? {
        guard let store = cluster?.history, let configuration = table.history.configuration(appID: appID, channel: channel) else { return nil }
        return (store, configuration)
    }

    /// Whether the event goes through the cluster's history.
    func keepsInCluster(appID: String, channel: String) -> Bool {
        clusterHistory(appID: appID, channel: channel) != nil
    }

    /// Numbers and keeps `frame` in the cluster's history, then delivers it here in its order
    /// and sends it to the other nodes; returns its serial. Throws when the cluster's history
    /// did not take it: nothing is delivered.
    func keep(appID: String, channel: String, frame: String, excluding: String?, cache: EventCachePolicy?) async throws -> Int {
        guard let (store, configuration) = clusterHistory(appID: appID, channel: channel) else {
            throw ClusterHistoryUnavailable()
        }
        let position = try await store.append(frame, appID: appID, channel: channel, excluding: excluding, keeping: configuration)
        let stamped = ChannelHistory.stamped(frame, at: position)
        let now = clock.date
        let cached = cache.map { EventCache.Entry(frame: stamped.text, triggeredAt: now, expiresAt: $0.expiry(from: now)) }
        // Every node hears every kept event, subscribed or not: its own history stays whole, and
        // a gap shows as soon as the next event comes. Sent first: its order is its serial, and
        // the other nodes' subscribers need not wait for this node's deliveries.
        if let cached {
            cluster?.transport.publish([.triggered(appID: appID, channel: channel, entry: cached, excluding: excluding)])
        } else {
            cluster?.transport.publish([.event(appID: appID, channel: channel, frame: stamped.text, excluding: excluding)])
        }
        let key = ChannelTable.Key(appID: appID, name: channel)
        table.accept(ChannelTable.KeptEvent(key: key, position: position, frame: stamped, excluding: excluding, cached: cached), policy: cachePolicy())
        countHistoryEvents()
        return position.serial
    }

    /// An event another node kept in the cluster's history: taken in its order. False when it
    /// is no such event (the caller delivers it as any other).
    func acceptKept(appID: String, channel: String, frame: String, excluding: String?, cached: EventCache.Entry?) -> Bool {
        guard clusterHistory(appID: appID, channel: channel) != nil,
              let members = try? JSONScanner.parse(frame).objectValue,
              let position = HistoryPosition(stream: members["stream"], serial: members["serial"])
        else { return false }
        let key = ChannelTable.Key(appID: appID, name: channel)
        table.accept(ChannelTable.KeptEvent(key: key, position: position, frame: EncodedFrame(frame), excluding: excluding, cached: cached), policy: cachePolicy())
        countHistoryEvents()
        return true
    }

    /// Before a subscription on a channel the cluster keeps a history of: what the cluster's
    /// history holds after `resume` (when there is one), or the channel's position (when this
    /// node has none). The channel's position here becomes the cluster's, and the events this
    /// node had not delivered yet are delivered. Nil: nothing to read, or the history could not
    /// be read (the subscription then goes on with what this node keeps).
    func readClusterHistory(appID: String, channel: String, resume: HistoryPosition?) async -> ClusterHistoryRead? {
        guard let (store, configuration) = clusterHistory(appID: appID, channel: channel) else { return nil }
        let key = ChannelTable.Key(appID: appID, name: channel)
        let current = table.history.current(key)
        guard resume != nil || current == nil else { return nil }
        // A client that saw more than this node has (on another node) is not ahead of the channel:
        // what this node has not had yet is read too, and delivered here first.
        var after = resume
        if let resume, let current, current.stream == resume.stream, current.serial < resume.serial { after = current }
        guard let read = try? await store.read(appID: appID, channel: channel, after: after, keeping: configuration) else { return nil }
        absorb(read, key: key)
        return read
    }

    /// Makes what the cluster's history said of the channel this node's: its stream, and the
    /// events this node has not delivered yet.
    private func absorb(_ read: ClusterHistoryRead, key: ChannelTable.Key) {
        if table.history.current(key)?.stream != read.position.stream {
            table.waiting[key] = nil
            table.history.adopt(read.position, for: key, now: clock.now)
        }
        let policy = cachePolicy()
        for event in read.events where event.serial > table.history.current(key)?.serial ?? .max {
            let position = HistoryPosition(stream: read.position.stream, serial: event.serial)
            table.accept(
                ChannelTable.KeptEvent(
                    key: key, position: position, frame: ChannelHistory.stamped(event.frame, at: position), excluding: event.excluding, cached: nil),
                policy: policy)
        }
        countHistoryEvents()
    }

    /// Reads from the cluster's history the events that channels' waiting ones have waited for
    /// since before `instant`; a channel whose missing events the history no longer keeps gives
    /// up on them (its subscribers here resume).
    func fillHistoryGaps(waitingSince instant: ContinuousClock.Instant) async {
        guard let store = cluster?.history else { return }
        for key in table.waitingChannels(since: instant) {
            guard let configuration = table.history.configuration(appID: key.appID, channel: key.name),
                  let current = table.history.current(key), let since = table.waiting[key]?.since
            else { continue }
            // Unreadable now (the database away): they wait for the next round.
            guard let read = try? await store.read(appID: key.appID, channel: key.name, after: current, keeping: configuration) else { continue }
            absorb(read, key: key)
            if table.waiting[key]?.since == since { table.abandonWait(key, policy: cachePolicy()) }
        }
        countHistoryEvents()
    }

    /// Has the cluster's history drop what it no longer keeps, this node's subscribed channels
    /// kept from going idle. A subscribed channel that is behind the cluster's history here, at
    /// the same serial as at the last round, has lost its last events on the way (no later
    /// event came to show the gap): they are read from the history.
    func maintainClusterHistory() async {
        guard let store = cluster?.history, !table.history.settings.apps.isEmpty else { return }
        guard let positions = try? await store.maintain(table.history.settings, subscribed: table.subscribedHistoryChannels) else { return }
        var behind: [ChannelTable.Key: HistoryPosition] = [:]
        for (key, position) in positions {
            guard let current = table.history.current(key), current.stream == position.stream, current.serial < position.serial else { continue }
            behind[key] = current
        }
        let stuck = behind.filter { key, current in behindAtLastRound[key] == current }
        behindAtLastRound = behind
        for (key, current) in stuck.sorted(by: { $0.key < $1.key }) {
            guard let configuration = table.history.configuration(appID: key.appID, channel: key.name),
                  let read = try? await store.read(appID: key.appID, channel: key.name, after: current, keeping: configuration)
            else { continue }
            absorb(read, key: key)
        }
    }
}

/// The cluster's history did not take an event (its database unreachable): the event was not
/// delivered.
struct ClusterHistoryUnavailable: Error {}
