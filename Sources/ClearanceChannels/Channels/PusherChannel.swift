import Clearance
import ClearanceSigning
import Foundation

/// A handle on one subscribed channel: its state, its events, its presence members, and client
/// events. ``ChannelClient/subscribe(_:)`` returns the same handle for the same name.
///
/// Streams (``events``, ``states``, ``members``, ``errors``, ``subscriptionCounts``) may be iterated by any number of
/// tasks; each access makes a new stream. A slow reader loses its oldest buffered events rather
/// than blocking the connection. After ``unsubscribe()`` every stream ends.
public final class PusherChannel: Sendable {
    /// The channel name.
    public let name: String
    /// Public, private, presence, encrypted or server-to-user, from the name's prefix.
    public let kind: ChannelNameKind
    weak let client: ChannelClient?
    let stateBox: Broadcaster<ChannelSubscriptionState>
    let eventBox = Broadcaster<ChannelEvent>(bufferLimit: 1024)
    let errorBox = Broadcaster<ChannelError>(bufferLimit: 64)
    /// Replays the last count once one came (an event broadcaster whose replay ``setSubscriptionCount(_:)`` sets).
    let countBox = Broadcaster<Int>(bufferLimit: 64)
    let roster = PresenceRoster()
    /// What the last resume found (``recovery``).
    let recoveryBox = Locked<ChannelRecovery?>(nil)

    init(name: String, client: ChannelClient, state: ChannelSubscriptionState = .pending) {
        self.name = name
        self.kind = ChannelNameKind(channelName: name)
        self.client = client
        self.stateBox = Broadcaster(replaying: state)
    }

    /// The subscription state now.
    public var state: ChannelSubscriptionState { stateBox.replayed ?? .unsubscribed }

    /// The subscription state, starting with the current one.
    public var states: AsyncStream<ChannelSubscriptionState> { stateBox.subscribe() }

    /// Every event from now on, `pusher:subscription_succeeded`, presence events and
    /// ``ChannelEvent/subscriptionCount`` included.
    public var events: AsyncStream<ChannelEvent> { eventBox.subscribe() }

    /// The events named `event` from now on.
    public func bind(event: String) -> AsyncFilterSequence<AsyncStream<ChannelEvent>> {
        eventBox.subscribe().filter { $0.name == event }
    }

    /// The events named `event`, decoded as JSON into `T`; iteration throws on the first event
    /// that does not decode.
    public func bind<T: Decodable & Sendable>(event: String, as type: T.Type) -> AsyncThrowingMapSequence<AsyncFilterSequence<AsyncStream<ChannelEvent>>, T> {
        bind(event: event).map { try $0.decode(T.self) }
    }

    /// Problems that do not end the subscription: encrypted events dropped after a failed
    /// decryption, client events the server refused.
    public var errors: AsyncStream<ChannelError> { errorBox.subscribe() }

    /// The presence member list now (empty for other kinds, and until subscribed).
    public var currentMembers: PresenceMembers { roster.members }

    /// Changes to the presence member list, starting with a snapshot; ``PresenceChange/cleared``
    /// when the connection is lost.
    public var members: AsyncStream<PresenceChange> { roster.subscribe() }

    /// How many ``members`` streams are open now (tests: a member who joins after this is
    /// non-zero arrives as a ``PresenceChange/added(_:)`` on them, not in their first snapshot).
    package var membersStreamCount: Int { roster.watcherCount }

    /// The channel's subscriber count as the server last sent it, or nil until it sent one.
    ///
    /// A server that counts subscriptions (hosted Pusher and `clearance serve` with the app's
    /// `subscriptionCount` option) sends the number of connections subscribed to the channel,
    /// across its cluster, whenever it changes (a burst of changes coalesced into few counts);
    /// never for presence channels, whose ``currentMembers`` say more. pusher-js calls it
    /// `channel.subscriptionCount`. The value is kept while the connection is down and replaced by
    /// the next count the server sends.
    public var subscriptionCount: Int? { countBox.replayed }

    /// The subscriber counts: the last one first when one came already (``subscriptionCount``),
    /// then every new one. Each also arrives on ``events`` as a ``ChannelEvent/subscriptionCount``
    /// event, for code that handles every event in one place (pusher-js binds
    /// `pusher:subscription_count`).
    public var subscriptionCounts: AsyncStream<Int> { countBox.subscribe() }

    /// What the channel's last resume found, or nil until a connection came back on a hub that
    /// keeps the channel's history. After ``ChannelRecovery/notRecovered(_:)``, fetch the channel's
    /// state from the app's own server; the same answer arrives on ``events`` as a
    /// ``ChannelEvent/recovery`` event, right after the subscription succeeded again.
    public var recovery: ChannelRecovery? { recoveryBox.withLock { $0 } }

    /// Waits until the channel is subscribed.
    /// - Throws: the ``ChannelError`` the subscription failed with, ``ChannelError/unsubscribed``,
    ///   or, when the waiting task is cancelled, ``ChannelError/connectionFailed(_:)`` with
    ///   ``ChannelClientError/notConnected``.
    public func subscribed() async throws(ChannelError) {
        for await state in states {
            switch state {
            case .subscribed: return
            case .failed(let error): throw error
            case .unsubscribed: throw .unsubscribed
            case .pending: continue
            }
        }
        throw .connectionFailed(.notConnected)
    }

    /// Sends a client event: `event` must start with `client-`, the channel must be a subscribed
    /// private or presence channel (never encrypted), at most 10 per second per connection, and
    /// `data` at most 10 KB of JSON.
    public func trigger(_ event: String, data: some Encodable & Sendable) async throws(ChannelError) {
        let json: String
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            json = String(decoding: try encoder.encode(data), as: UTF8.self)
        } catch {
            throw .clientEventRejected(.unencodableData)
        }
        try await trigger(event, json: json)
    }

    /// Sends a client event whose data is the JSON text `json`.
    public func trigger(_ event: String, json: String) async throws(ChannelError) {
        guard let client else { throw .connectionFailed(.notConnected) }
        try await client.trigger(event, on: self, json: json)
    }

    /// Unsubscribes; every stream of this handle ends.
    public func unsubscribe() async {
        await client?.unsubscribe(name)
    }

    // MARK: - Updates from the client

    func setState(_ state: ChannelSubscriptionState) {
        switch (self.state, state) {
        case (.pending, .pending), (.subscribed, .subscribed): return
        default: stateBox.send(state)
        }
    }

    func deliver(_ event: ChannelEvent) {
        eventBox.send(event)
    }

    /// A resume's answer: kept as ``recovery`` and delivered as a ``ChannelEvent/recovery`` event.
    func recovered(_ recovery: ChannelRecovery) {
        recoveryBox.withLock { $0 = recovery }
        eventBox.send(ChannelEvent(name: ChannelEvent.recovery, channel: name, data: recovery.eventData))
    }

    func report(_ error: ChannelError) {
        errorBox.send(error)
    }

    /// A count from the server: kept as ``subscriptionCount`` and sent to ``subscriptionCounts``,
    /// in one step, so a new stream never misses or repeats it.
    func setSubscriptionCount(_ count: Int) {
        countBox.update { last in
            last = count
            return count
        }
    }

    func finish() {
        stateBox.send(.unsubscribed)
        stateBox.finish()
        eventBox.finish()
        errorBox.finish()
        countBox.finish()
        roster.finish()
    }
}

extension PusherChannel: CustomStringConvertible {
    public var description: String { "PusherChannel(\(name), \(state))" }
}
