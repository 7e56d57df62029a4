import ClearanceWire

/// A cluster's history on this node: the events the cluster numbered (``ClusterHistory``) reach
/// each node's subscribers in serial order, and each node keeps them in its own
/// ``ChannelHistory``, whence it replays the newest.
extension ChannelTable {
    /// An event of a cluster's history, as it reaches this node.
    package struct KeptEvent: Sendable {
        package let key: Key
        package let position: HistoryPosition
        /// The frame with its position (``ChannelHistory/stamped(_:at:)``).
        package let frame: EncodedFrame
        package let excluding: String?
        /// On a cache channel triggered through the HTTP API, the channel's last event to keep.
        package let cached: EventCache.Entry?

        package init(key: Key, position: HistoryPosition, frame: EncodedFrame, excluding: String?, cached: EventCache.Entry?) {
            self.key = key
            self.position = position
            self.frame = frame
            self.excluding = excluding
            self.cached = cached
        }
    }

    /// What ``accept(_:)`` did with an event.
    package enum Acceptance: Sendable, Equatable {
        /// It was delivered, with `count` events that waited for it.
        case delivered(count: Int)
        /// It waits for an earlier one.
        case waiting
        /// It came already.
        case repeated
        /// Too many waited: this node's subscribers of the channel were closed with 4200 (they
        /// resume), and the channel goes on from the events that waited.
        case overflowed
    }

    /// Takes an event of a cluster's history: delivered to this node's subscribers and kept,
    /// with those that waited for it, when it is the channel's next here; else it waits (or is
    /// dropped, when it came already). An event of another stream starts the channel again from it.
    @discardableResult
    package mutating func accept(_ event: KeptEvent, policy: EventCachePolicy) -> Acceptance {
        let key = event.key
        guard history.configuration(appID: key.appID, channel: key.name) != nil else {
            deliver(event, policy: policy)
            return .delivered(count: 0)
        }
        if history.current(key)?.stream != event.position.stream {
            // The first this node hears of the channel, or a new stream: it starts here.
            waiting[key] = nil
            history.adopt(HistoryPosition(stream: event.position.stream, serial: event.position.serial - 1), for: key, now: now())
        }
        let last = history.current(key)?.serial ?? 0
        guard event.position.serial > last else { return .repeated }
        guard event.position.serial == last + 1 else {
            waiting[key, default: HistoryWaiting(since: now())].insert(event)
            guard waiting[key]!.overflows else { return .waiting }
            abandonWait(key, policy: policy)
            return .overflowed
        }
        deliver(event, policy: policy)
        return .delivered(count: drainWaiting(key, policy: policy))
    }

    /// The channels whose events have waited since before `instant`.
    package func waitingChannels(since instant: ContinuousClock.Instant) -> [Key] {
        waiting.filter { $0.value.since <= instant }.map(\.key)
    }

    /// Gives up on the events a channel's waiting ones wait for (the cluster's history no longer
    /// keeps them): its subscribers here are closed with 4200, so that they resume and hear that
    /// they did not recover, and the channel goes on from the first that waited.
    package mutating func abandonWait(_ key: Key, policy: EventCachePolicy) {
        guard let first = waiting[key]?.first else { return }
        for outbox in channels[key]?.subscribers.values ?? [:].values { outbox.close(.reconnectImmediately) }
        history.skip(key, to: first - 1, now: now())
        _ = drainWaiting(key, policy: policy)
    }

    /// Delivers the channel's waiting events that are next, in order; returns how many.
    private mutating func drainWaiting(_ key: Key, policy: EventCachePolicy) -> Int {
        var count = 0
        while let last = history.current(key)?.serial, let next = waiting[key]?.take(last + 1) {
            deliver(next, policy: policy)
            count += 1
        }
        if waiting[key]?.events.isEmpty == true { waiting[key] = nil }
        return count
    }

    private mutating func deliver(_ event: KeptEvent, policy: EventCachePolicy) {
        history.record(event.frame, serial: event.position.serial, to: event.key, now: now())
        if let cached = event.cached { remember(cached, appID: event.key.appID, channel: event.key.name, policy: policy) }
        deliver(appID: event.key.appID, channel: event.key.name, frame: event.frame, excluding: event.excluding)
    }
}

extension ChannelTable {
    /// The channels with a subscriber here whose app keeps a history of them.
    package var subscribedHistoryChannels: [Key] {
        channels.keys.filter { history.configuration(appID: $0.appID, channel: $0.name) != nil }
    }
}
