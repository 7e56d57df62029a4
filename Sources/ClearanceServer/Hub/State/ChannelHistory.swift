import ClearanceWire
import NIOCore

/// The recent events of the channels whose app keeps a history (``ChannelHistoryConfiguration``),
/// in this node's memory: part of the hub's one channel state (a ``ChannelTable`` holds one).
///
/// Each channel has a *stream*, named once when it is made, and numbers its events from 1 in it
/// (their *serial*). A stream lasts while it keeps an event, has a subscriber here, or is less
/// than its app's `ttl` past its last event or subscriber; when it goes, its history is lost, and
/// the channel's next stream has another name, so that a client holding a position in the old
/// one is told it did not recover. Names start with this node's own random prefix: a restarted
/// node starts new streams.
///
/// On a cluster that keeps the history (``ClusterHistory``), the cluster names the streams and
/// numbers the events: each node keeps the ones that reached it, in serial order
/// (``adopt(_:for:now:)``, ``record(_:serial:to:now:)``, ``skip(_:to:now:)``), and a resume adds
/// the events the cluster's history read for it before its own.
///
/// Bounded three ways: `size` events per channel and `ttl` seconds per event (the app's), and
/// bytes (``HubChannelLimits/maxHistoryBytes``, and each app's part of it): past either bound of
/// bytes the app's oldest event goes. Each app keeps its events and idle streams in the order
/// they came (``AppHistory/order``), so that finding its oldest costs nothing per event.
package struct ChannelHistory: Sendable {
    /// A place in a channel's history: the stream, and the serial of the last event there.
    package typealias Position = HistoryPosition

    /// What the hub keeps: the apps with a history (reloads change them) and the bounds of bytes.
    package struct Settings: Sendable, Equatable {
        package var apps: [String: ChannelHistoryConfiguration]
        /// ``HubChannelLimits/maxHistoryBytes``.
        package var maxBytes: Int
        /// One app's part of ``maxBytes``.
        package var maxBytesPerApp: Int

        package init(apps: [String: ChannelHistoryConfiguration] = [:], maxBytes: Int = HubChannelLimits().maxHistoryBytes, maxBytesPerApp: Int? = nil) {
            self.apps = apps
            self.maxBytes = maxBytes
            self.maxBytesPerApp = maxBytesPerApp ?? maxBytes
        }
    }

    /// What a resume found.
    package enum Resumption: Sendable, Equatable {
        /// Every event after the client's position is here: these, in order (none when it missed
        /// nothing), up to `position`.
        case recovered([EncodedFrame], Position)
        /// The client must fetch the state from the app's server; `position` is the channel's now.
        case notRecovered(Position, NotRecovered)
    }

    /// Why a resume did not recover.
    package enum NotRecovered: String, Sendable, Equatable {
        /// The stream the client names is not the channel's (its history was lost since).
        case otherStream = "another stream"
        /// The client names a serial the channel has not reached.
        case ahead = "a serial ahead of the channel"
        /// An event it missed is no longer kept (`size`, `ttl` or the bound of bytes).
        case gap = "missed events no longer kept"
        /// The missed events are more bytes than the connection may be sent at once.
        case tooLarge = "missed events larger than the connection may hold unsent"
    }

    /// What an event costs beyond its frame, and a channel's history beyond its events.
    static let entryOverhead = 64
    static let streamOverhead = 256

    private struct Entry: Sendable {
        let serial: Int
        let frame: EncodedFrame
        let at: ContinuousClock.Instant

        var bytes: Int { frame.bytes.readableBytes + ChannelHistory.entryOverhead }
    }

    private struct Stream: Sendable {
        let name: String
        let generation: Int
        var lastSerial = 0
        var entries = CircularBuffer<Entry>()
        var subscribers = 0
        /// Its last event, or when its last subscriber here left.
        var touchedAt: ContinuousClock.Instant

        var isIdle: Bool { entries.isEmpty && subscribers == 0 }
    }

    /// An event, or an idle stream (`serial` 0), in the order its app got them.
    private struct Record: Sendable {
        let key: ChannelTable.Key
        let generation: Int
        let serial: Int
    }

    private struct AppHistory: Sendable {
        var bytes = 0
        var events = 0
        var streams = 0
        /// Its events and idle streams in the order they came; a record whose event or stream
        /// went since stays until it is reached or the order is compacted (``compact(_:)``).
        var order = CircularBuffer<Record>()
    }

    package private(set) var settings = Settings()
    private var streams: [ChannelTable.Key: Stream] = [:]
    private var apps: [String: AppHistory] = [:]
    private var generations = 0
    /// This node's prefix of stream names.
    private let node: String
    /// Every app's bytes together.
    package private(set) var bytes = 0
    /// Events kept, every channel together.
    package private(set) var eventCount = 0
    /// Channels with a stream, every app together.
    package var streamCount: Int { streams.count }
    /// The records of every app's order of events and idle streams (bounded by ``compact(_:)``).
    package var bookkeepingRecords: Int { apps.values.reduce(0) { $0 + $1.order.count } }
    /// The events kept that have their record in their app's order (every one must: the bound of
    /// bytes and the expiry find them there).
    package var recordedEvents: Int {
        apps.values.reduce(0) { total, app in total + app.order.count { $0.serial != 0 && stands($0) } }
    }

    package init() {
        var generator = SystemRandomNumberGenerator()
        node = String(generator.next() & 0xFFFF_FFFF_FFFF, radix: 36)
    }

    /// The history settings of `appID`'s `channel`, when it has one.
    package func configuration(appID: String, channel: String) -> ChannelHistoryConfiguration? {
        guard let configuration = settings.apps[appID], configuration.covers(channel) else { return nil }
        return configuration
    }

    /// Serves `settings` from now on: the channels of apps that no longer keep a history lose it at
    /// once, and the bounds apply at once.
    package mutating func update(_ settings: Settings, now: ContinuousClock.Instant) {
        self.settings = settings
        for key in Array(streams.keys) {
            guard let configuration = configuration(appID: key.appID, channel: key.name) else {
                drop(key)
                continue
            }
            while streams[key]!.entries.count > configuration.size {
                let gone = streams[key]!.entries.removeFirst()
                account(key.appID, bytes: -gone.bytes, events: -1)
            }
        }
        for appID in apps.keys where settings.apps[appID] == nil { apps[appID] = nil }
        enforceBytes()
    }

    /// The channel's position for a new subscriber here (its stream made when it has none), or nil
    /// when its app keeps no history of it.
    package mutating func subscribe(_ key: ChannelTable.Key, now: ContinuousClock.Instant) -> Position? {
        guard configuration(appID: key.appID, channel: key.name) != nil else { return nil }
        var stream = takeStream(key, now: now)
        stream.subscribers += 1
        defer { streams[key] = stream }
        return Position(stream: stream.name, serial: stream.lastSerial)
    }

    /// The channel's position now, without a new subscriber (one subscribing again).
    package mutating func position(_ key: ChannelTable.Key, now: ContinuousClock.Instant) -> Position? {
        guard configuration(appID: key.appID, channel: key.name) != nil else { return nil }
        let stream = takeStream(key, now: now)
        streams[key] = stream
        return Position(stream: stream.name, serial: stream.lastSerial)
    }

    /// A subscriber here left the channel.
    package mutating func unsubscribe(_ key: ChannelTable.Key, now: ContinuousClock.Instant) {
        guard var stream = streams[key], stream.subscribers > 0 else { return }
        stream.subscribers -= 1
        if stream.subscribers == 0 { stream.touchedAt = now }
        streams[key] = stream
        if stream.isIdle { recordIdle(key, stream) }
    }

    /// What a subscriber resuming from `position` gets, at most `maxBytes` of missed frames.
    /// Checked against `ttl` now, not only when ``purge(now:)`` last ran.
    ///
    /// On a cluster, `fetched` holds the events after `position` that the cluster's history
    /// (``ClusterHistory``) still keeps, read before this step: the missed events are those, then
    /// this node's own after them (which reached it since).
    package func resume(
        _ key: ChannelTable.Key, from position: Position, fetched: ClusterHistoryRead? = nil, maxBytes: Int, now: ContinuousClock.Instant
    ) -> Resumption? {
        guard let configuration = configuration(appID: key.appID, channel: key.name), let stream = streams[key] else { return nil }
        let current = Position(stream: stream.name, serial: stream.lastSerial)
        guard position.stream == stream.name else { return .notRecovered(current, .otherStream) }
        guard position.serial <= stream.lastSerial else { return .notRecovered(current, .ahead) }
        guard position.serial < stream.lastSerial else { return .recovered([], current) }
        var missed: [EncodedFrame] = []
        var next = position.serial + 1
        if let fetched, fetched.position.stream == stream.name {
            for event in fetched.events where event.serial >= next && event.serial <= stream.lastSerial {
                guard event.serial == next else { break }
                missed.append(Self.stamped(event.frame, at: Position(stream: stream.name, serial: event.serial)))
                next += 1
            }
        }
        if next <= stream.lastSerial {
            guard let first = stream.entries.first, first.serial <= next else { return .notRecovered(current, .gap) }
            let own = stream.entries[stream.entries.index(stream.entries.startIndex, offsetBy: next - first.serial)...]
            guard let oldest = own.first, !expired(oldest, configuration, now: now) else { return .notRecovered(current, .gap) }
            missed += own.map(\.frame)
        }
        var size = 0
        for frame in missed {
            size += frame.bytes.readableBytes
            if size > maxBytes { return .notRecovered(current, .tooLarge) }
        }
        return .recovered(missed, current)
    }

    /// The channel's position on this node, or nil when it has no stream here.
    package func current(_ key: ChannelTable.Key) -> Position? {
        streams[key].map { Position(stream: $0.name, serial: $0.lastSerial) }
    }

    /// `frame` (a JSON object's text, as the hub writes every event frame) with the members
    /// clients read, `serial` and `stream`: the same bytes on every node.
    package static func stamped(_ frame: String, at position: Position) -> EncodedFrame {
        // The hub writes every event frame as one JSON object: its members go before the last brace.
        let members = #","serial":\#(position.serial),"stream":"\#(position.stream)"}"#
        return EncodedFrame(frame.utf8.last == UInt8(ascii: "}") ? String(frame.dropLast()) + members : frame)
    }

    /// On a cluster: makes `position` the channel's on this node (the cluster's history named its
    /// stream and numbered its events), the events this node kept of another stream dropped. Its
    /// subscribers here stay counted.
    package mutating func adopt(_ position: Position, for key: ChannelTable.Key, now: ContinuousClock.Instant) {
        guard configuration(appID: key.appID, channel: key.name) != nil, streams[key]?.name != position.stream else { return }
        let subscribers = streams[key]?.subscribers ?? 0
        drop(key)
        var stream = takeStream(key, now: now, named: position.stream)
        stream.lastSerial = position.serial
        stream.subscribers = subscribers
        streams[key] = stream
        if stream.isIdle { recordIdle(key, stream) }
    }

    /// On a cluster: the channel's events up to `serial` will never reach this node (the cluster's
    /// history no longer keeps them): its events here are dropped, and it goes on from `serial`.
    package mutating func skip(_ key: ChannelTable.Key, to serial: Int, now: ContinuousClock.Instant) {
        guard var stream = streams.removeValue(forKey: key) else { return }
        var freed = 0
        for entry in stream.entries { freed += entry.bytes }
        account(key.appID, bytes: -freed, events: -stream.entries.count)
        stream.entries.removeAll()
        stream.lastSerial = max(stream.lastSerial, serial)
        stream.touchedAt = now
        streams[key] = stream
        if stream.isIdle { recordIdle(key, stream) }
    }

    /// Keeps an event of the channel, when its app keeps a history of it: returns `frame` with
    /// its `serial` and `stream` (the members clients read), and the serial; nil otherwise.
    /// `frame` is a JSON object's text.
    package mutating func append(_ frame: String, to key: ChannelTable.Key, now: ContinuousClock.Instant) -> (frame: EncodedFrame, serial: Int)? {
        guard configuration(appID: key.appID, channel: key.name) != nil else { return nil }
        let stream = takeStream(key, now: now)
        streams[key] = stream
        let stamped = Self.stamped(frame, at: Position(stream: stream.name, serial: stream.lastSerial + 1))
        record(stamped, serial: stream.lastSerial + 1, to: key, now: now)
        return (stamped, stream.lastSerial + 1)
    }

    /// Keeps `stamped`, the channel's event `serial` (the next of its stream here), when its app
    /// keeps a history of it.
    package mutating func record(_ stamped: EncodedFrame, serial: Int, to key: ChannelTable.Key, now: ContinuousClock.Instant) {
        guard let configuration = configuration(appID: key.appID, channel: key.name) else { return }
        var stream = takeStream(key, now: now)
        stream.lastSerial = serial
        stream.touchedAt = now
        let entry = Entry(serial: serial, frame: stamped, at: now)
        stream.entries.append(entry)
        account(key.appID, bytes: entry.bytes, events: 1)
        apps[key.appID, default: AppHistory()].order.append(Record(key: key, generation: stream.generation, serial: entry.serial))
        while stream.entries.count > configuration.size {
            let gone = stream.entries.removeFirst()
            account(key.appID, bytes: -gone.bytes, events: -1)
        }
        streams[key] = stream
        enforceBytes(of: [key.appID])
        compact(key.appID)
    }

    /// Drops the events older than their app's `ttl`, and the streams idle for longer than it.
    /// Each app's order holds its events and idle streams in the order they came, and an app has
    /// one `ttl`: the walk stops at the first that has not expired, so a purge costs what expires.
    package mutating func purge(now: ContinuousClock.Instant) {
        for appID in Array(apps.keys) {
            guard let configuration = settings.apps[appID] else { continue }
            let ttl = Duration.seconds(configuration.ttl)
            while let record = apps[appID]?.order.first {
                guard stands(record), var stream = streams[record.key] else {
                    apps[appID]!.order.removeFirst()
                    continue
                }
                if record.serial == 0 {
                    guard now - stream.touchedAt >= ttl else { break }
                    apps[appID]!.order.removeFirst()
                    drop(record.key)
                    continue
                }
                // The first record of a stream that stands is its oldest event.
                guard let first = stream.entries.first, expired(first, configuration, now: now) else { break }
                apps[appID]!.order.removeFirst()
                stream.entries.removeFirst()
                account(appID, bytes: -first.bytes, events: -1)
                streams[record.key] = stream
                guard stream.isIdle else { continue }
                if now - stream.touchedAt >= ttl {
                    drop(record.key)
                } else {
                    recordIdle(record.key, stream)
                }
            }
            compact(appID)
        }
    }

    // MARK: - Helpers

    private func expired(_ entry: Entry, _ configuration: ChannelHistoryConfiguration, now: ContinuousClock.Instant) -> Bool {
        now - entry.at >= .seconds(configuration.ttl)
    }

    /// The channel's stream, taken out of the table (the caller puts it back); a new one when it
    /// has none (named `name`: the cluster's; nil: this node's next).
    private mutating func takeStream(_ key: ChannelTable.Key, now: ContinuousClock.Instant, named name: String? = nil) -> Stream {
        if let stream = streams.removeValue(forKey: key) { return stream }
        generations += 1
        account(key.appID, bytes: Self.streamOverhead + key.name.utf8.count, events: 0, streams: 1)
        return Stream(name: name ?? "\(node)-\(String(generations, radix: 36))", generation: generations, touchedAt: now)
    }

    private mutating func account(_ appID: String, bytes delta: Int, events: Int, streams: Int = 0) {
        apps[appID, default: AppHistory()].bytes += delta
        apps[appID]!.events += events
        apps[appID]!.streams += streams
        bytes += delta
        eventCount += events
    }

    /// Notes that the stream became idle: the oldest idle streams go when bytes run short.
    private mutating func recordIdle(_ key: ChannelTable.Key, _ stream: Stream) {
        apps[key.appID, default: AppHistory()].order.append(Record(key: key, generation: stream.generation, serial: 0))
        compact(key.appID)
    }

    /// Removes the channel's stream and everything it keeps.
    private mutating func drop(_ key: ChannelTable.Key) {
        guard let stream = streams.removeValue(forKey: key) else { return }
        var freed = Self.streamOverhead + key.name.utf8.count
        for entry in stream.entries { freed += entry.bytes }
        account(key.appID, bytes: -freed, events: -stream.entries.count, streams: -1)
    }

    /// Whether `record` still stands for a kept event or an idle stream. (A stream keeps its events
    /// from its first to its last serial; records come in the order of their events, so the first
    /// record of a stream that stands is that stream's oldest event.)
    private func stands(_ record: Record) -> Bool {
        guard let stream = streams[record.key], stream.generation == record.generation else { return false }
        guard record.serial != 0 else { return stream.isIdle }
        guard let first = stream.entries.first else { return false }
        return first.serial <= record.serial
    }

    /// Drops the oldest of `appID`'s events or idle streams; false when it has none.
    private mutating func evictOldest(of appID: String) -> Bool {
        while let record = apps[appID]?.order.popFirst() {
            guard stands(record) else { continue }
            guard record.serial != 0, var stream = streams.removeValue(forKey: record.key) else {
                drop(record.key)
                return true
            }
            let gone = stream.entries.removeFirst()
            account(appID, bytes: -gone.bytes, events: -1)
            streams[record.key] = stream
            // With no subscriber here its history is lost: the channel's next event starts another stream.
            if stream.isIdle { drop(record.key) }
            return true
        }
        return false
    }

    /// Drops the oldest events until each of `appIDs` (every app: nil) is within its part and
    /// every app together within the bound. An event makes only its own app grow.
    private mutating func enforceBytes(of appIDs: [String]? = nil) {
        for appID in appIDs ?? Array(apps.keys) where apps[appID] != nil {
            while apps[appID]!.bytes > settings.maxBytesPerApp, evictOldest(of: appID) {}
        }
        while bytes > settings.maxBytes, let largest = apps.max(by: { $0.value.bytes < $1.value.bytes })?.key, evictOldest(of: largest) {}
    }

    /// Rebuilds `appID`'s order when most of its records no longer stand for anything.
    private mutating func compact(_ appID: String) {
        guard let app = apps[appID], app.order.count > 2 * (app.events + app.streams) + 64 else { return }
        apps[appID]!.order = CircularBuffer(app.order.filter(stands))
    }
}
