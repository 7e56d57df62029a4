import Clearance

/// The node sync of a cluster: what a node sends when its link is (re)established, and what it
/// makes of the others' messages. The transport only carries them (``ClusterInbox``).
extension HubChannelState {
    /// Hands `send` the hello and this node's whole state, in the step that reads the state.
    func linkEstablished(_ send: @Sendable ([ClusterMessage]) -> Void) {
        send([.hello] + wholeState)
    }

    /// Hands `send` this node's whole state, in the step that reads it.
    func sendWholeState(_ send: @Sendable ([ClusterMessage]) -> Void) {
        send(wholeState)
    }

    /// This node's whole state, which replaces what the other nodes know of it, and the cache
    /// channels' last events it keeps (a node that (re)joins learns them from every other).
    var wholeState: [ClusterMessage] {
        [.syncBegin] + table.localState.changes.map(ClusterMessage.change) + [.syncEnd]
            + table.cache.live(at: clock.date).map { key, entry in .cached(appID: key.appID, channel: key.name, entry: entry) }
    }

    /// Applies `node`'s messages in order; after a `hello`, hands `answer` this node's whole
    /// state as it is once they are applied. A node forgotten for its silence that speaks again
    /// was only slow: `answer` then gets a `hello` before the whole state, so that it sends its
    /// own again (unless these messages hold it, or its goodbye). What `answer` gets is always a
    /// whole state: a transport may take it as one (and owe no resynchronization after it).
    func receive(_ messages: [ClusterMessage], from node: String, answer: @Sendable ([ClusterMessage]) -> Void) {
        lastHeard[node] = clock.now
        var helloed = false
        let askAgain = silenced.removeValue(forKey: node) != nil && !messages.contains { $0 == .syncBegin || $0 == .bye }
        for message in messages {
            switch message.kind {
            case let .event(appID, channel, frame, excluded):
                guard !acceptKept(appID: appID, channel: channel, frame: frame, excluding: excluded, cached: nil) else { continue }
                table.deliver(appID: appID, channel: channel, frame: frame, excluding: excluded)
            case let .change(change):
                if incomingSync[node] != nil {
                    incomingSync[node]!.apply(change)
                } else {
                    table.apply(change, from: node)
                }
            case .hello:
                helloed = true
            case .syncBegin:
                incomingSync[node] = ChannelTable.NodeState()
            case .syncEnd:
                if let state = incomingSync.removeValue(forKey: node) { table.replace(node: node, with: state) }
            case .bye:
                forget(node)
            case let .terminate(termination):
                _ = terminations.withLock { $0?.yield(termination) }
            case let .triggered(appID, channel, entry, excluded):
                guard !acceptKept(appID: appID, channel: channel, frame: entry.frame, excluding: excluded, cached: entry) else { continue }
                table.trigger(appID: appID, channel: channel, entry: entry, excluding: excluded, policy: cachePolicy())
            case let .cached(appID, channel, entry):
                table.remember(entry, appID: appID, channel: channel, policy: cachePolicy())
            }
        }
        if askAgain {
            answer([.hello] + wholeState)
        } else if helloed {
            answer(wholeState)
        }
    }

    /// Forgets the nodes neither in `live` nor heard from within `silence`, and returns them.
    /// A node forgotten so that is in `live` again was only slow: this node says `hello`, so
    /// that it sends its whole state again.
    func forgetNodes(notIn live: Set<String>, silentFor silence: Duration) -> [String] {
        let now = clock.now
        var forgotten: [String] = []
        for node in table.remoteNodes.union(incomingSync.keys).sorted() where !live.contains(node) {
            if let heard = lastHeard[node], now - heard < silence { continue }
            forget(node)
            silenced[node] = now
            forgotten.append(node)
        }
        let back = silenced.keys.filter(live.contains)
        for node in back { silenced[node] = nil }
        // Published as any change is: a transport that drops it (its queue full) sends this
        // node's whole state once it has caught up, not the hello; the node is then asked again
        // only when it is forgotten again.
        if !back.isEmpty { cluster?.transport.publish([.hello] + wholeState) }
        // A node that stays away is dead: remembered for an hour, and 1,024 of them at most.
        silenced = silenced.filter { now - $0.value < .seconds(3600) }
        if silenced.count > 1024 {
            silenced = Dictionary(uniqueKeysWithValues: silenced.sorted { $0.value > $1.value }.prefix(1024).map { ($0.key, $0.value) })
        }
        return forgotten
    }

    private func forget(_ node: String) {
        incomingSync[node] = nil
        lastHeard[node] = nil
        table.replace(node: node, with: ChannelTable.NodeState())
    }
}
