import Clearance
import ClearanceSigning
import ClearanceWire
import Logging

/// A Pusher Channels protocol 7 client on swift-websocket's `WSClient`, with pluggable channel
/// authorization.
///
/// ```swift
/// let client = ChannelClient(key: "app-key", options: ChannelClientOptions(
///     endpoint: .host("127.0.0.1", port: 6001),
///     authorizer: try ServerChannelAuthorizer(endpoint: authURL, credentialSource: session)))
/// await client.connect()
/// let orders = await client.subscribe("private-orders")
/// for await event in orders.bind(event: "created") { print(event.data ?? "") }
/// ```
///
/// - The connection's state (``states``) follows ``ConnectionState``; lost connections are
///   re-opened by ``ReconnectPolicy`` (close codes 4000–4099 stop, 4100–4199 back off, 4200–4299
///   — a planned restart — retry about every second for a while, then back off).
/// - ``subscribe(_:)`` before ``connect()`` queues the subscription; the same name returns the
///   same ``PusherChannel``.
/// - Private, presence and encrypted channels are authorized by the options' authorizer for
///   every new socket id; an authorization that arrives for an earlier socket is discarded, never
///   sent (``StaleAuthorizationFilter``).
/// - Nothing fails silently: authorization errors, server rejections and dropped encrypted
///   events reach the channel as ``ChannelError``s.
/// - After ``signIn()``, ``watchlistEvents`` tells when the users the signed `user_data` watches
///   come online or go offline; a channel's subscriber count, where the server sends one, is
///   ``PusherChannel/subscriptionCount`` and ``PusherChannel/subscriptionCounts``.
public actor ChannelClient {
    /// The app key.
    public nonisolated let key: String
    /// The options it was made with.
    public nonisolated let options: ChannelClientOptions
    let logger: Logger

    var machine: ConnectionMachine
    let stateBox: Broadcaster<ConnectionState>
    let serverErrorBox = Broadcaster<ServerRejection>(bufferLimit: 64)
    let watchlistBox = Broadcaster<WatchlistEvent>(bufferLimit: 1024)
    var filter = StaleAuthorizationFilter()
    var records: [String: SubscriptionRecord] = [:]
    var socket: LiveSocket?
    var nextSocketToken: UInt64 = 0
    /// The WebSocket connect attempt in progress, and whether its handler started or it was given up.
    var connectAttempt: (id: UInt64, started: Bool, abandoned: Bool) = (0, false, false)
    /// How many WebSocket connect attempts were given up at `connectTimeout` (for tests and diagnostics).
    package internal(set) var connectAttemptsGivenUp = 0
    /// Whether a reconnect is scheduled: true while the connection loop waits out the back-off
    /// the policy gave a lost connection (the state is then ``ConnectionState/unavailable``),
    /// until it opens the next socket or ``disconnect()`` stops it. False once the connection
    /// failed for good: no socket is opened again before the next ``connect()``. For tests and
    /// diagnostics (a "does not reconnect" check reads it instead of waiting).
    package internal(set) var reconnectScheduled = false
    /// The back-offs the policy gave the last lost connections (at most the last 8), oldest
    /// first: for tests and diagnostics (a test reads the delay chosen, not the wall time between
    /// sockets, which a loaded machine stretches).
    package internal(set) var recentReconnectDelays: [Duration] = []
    var connectionTask: Task<Void, Never>?
    var rateLimiter = ClientEventRateLimiter()
    var signInState = SignInState()
    var random = SystemRandomNumberGenerator()
    /// Subscribe frames sent, with their socket ids, for tests and diagnostics (never signatures).
    private(set) var subscribeLog: [(channel: String, socketID: String?)] = []

    /// Creates a client; nothing happens until ``connect()``.
    public init(key: String, options: ChannelClientOptions = ChannelClientOptions()) {
        self.key = key
        self.options = options
        self.logger = options.logger
        self.machine = ConnectionMachine(policy: options.reconnectPolicy)
        self.stateBox = Broadcaster(replaying: .initialized)
    }

    // MARK: - Connection

    /// The connection state now.
    public var state: ConnectionState { machine.state }

    /// The connection state, starting with the current one.
    public nonisolated var states: AsyncStream<ConnectionState> { stateBox.subscribe() }

    /// `pusher:error` frames that name no channel and no pending sign-in (for example a refused
    /// client event, code 4301).
    public nonisolated var serverErrors: AsyncStream<ServerRejection> { serverErrorBox.subscribe() }

    /// Online and offline events for the users on the signed-in user's watchlist (the
    /// `"watchlist"` ids of the signed `user_data`), one ``WatchlistEvent`` per entry of each
    /// `pusher_internal:watchlist_events` frame, from when the stream is made.
    ///
    /// Make the stream before ``signIn()``: the server sends the users who are online now right
    /// after the sign-in, as one ``WatchlistEvent/Kind/online`` event (none when nobody is), and a
    /// stream made later may miss it. After a lost connection the client signs in again and that
    /// first event comes again, so the users online are the ones the events since the last
    /// ``ConnectionState/connected(socketID:)`` said online and not since offline: users who went
    /// offline while the connection was down get no ``WatchlistEvent/Kind/offline``.
    /// A frame the client cannot read is logged (`channels.frame.malformed`) and dropped; its
    /// readable entries are still delivered.
    public nonisolated var watchlistEvents: AsyncStream<WatchlistEvent> { watchlistBox.subscribe() }

    /// The socket id while connected.
    public var socketID: String? { machine.state.socketID }

    /// How many authorizations arrived for an earlier socket and were discarded.
    package var staleAuthorizationsDiscarded: Int { filter.discarded }

    /// Opens the connection (and keeps it open, reconnecting as the policy says) until
    /// ``disconnect()``. Does nothing when already connecting or connected. Options that cannot
    /// work (``ChannelClientOptions/validate()``) fail the connection at once with their reason.
    public func connect() {
        guard machine.connectRequested() else { return }
        do {
            try options.validate()
            _ = try options.webSocketURL(key: key)
        } catch {
            machine.failed(error)
            publishState()
            return
        }
        publishState()
        connectionTask = Task { await self.runConnectionLoop() }
    }

    /// Closes the connection and stops reconnecting; waits until the socket is closed.
    /// Subscriptions are kept and renewed by the next ``connect()``.
    public func disconnect() async {
        machine.disconnectRequested()
        let task = connectionTask
        connectionTask = nil
        task?.cancel()
        await task?.value
        socketEnded()
        publishState()
    }

    /// Waits until connected (or until the connection fails for good).
    /// - Returns: the socket id.
    /// - Throws: the ``ChannelClientError`` of a failed connection, or
    ///   ``ChannelClientError/notConnected`` when disconnected or cancelled.
    public func connected() async throws(ChannelClientError) -> String {
        for await state in states {
            switch state {
            case .connected(let socketID): return socketID
            case .failed(let error): throw error
            case .disconnected: throw .notConnected
            default: continue
            }
        }
        throw .notConnected
    }

    func publishState() {
        if stateBox.replayed != machine.state {
            logger.debug("channels.state", metadata: ["state": "\(machine.state)"])
            stateBox.send(machine.state)
        }
    }

    // MARK: - Channels

    /// The channel named `name`, subscribing to it (now, or as soon as connected). The same name
    /// always returns the same handle until it is unsubscribed.
    public func subscribe(_ name: String) -> PusherChannel {
        if let existing = records[name] { return existing.channel }
        let channel = PusherChannel(name: name, client: self)
        records[name] = SubscriptionRecord(channel: channel)
        do {
            try ChannelNameLimits.default.validate(name)
        } catch {
            channel.setState(.failed(.invalidChannelName(error)))
            return channel
        }
        if socket?.established == true { startSubscription(name) }
        return channel
    }

    /// The handle for `name`, if subscribed.
    public func channel(named name: String) -> PusherChannel? {
        records[name]?.channel
    }

    /// Every subscribed channel.
    public var channels: [PusherChannel] { records.values.map(\.channel) }

    /// Unsubscribes from `name`; the handle's streams end.
    public func unsubscribe(_ name: String) async {
        guard let record = records.removeValue(forKey: name) else { return }
        if record.subscribeSent, let token = socket?.token {
            await send(OutgoingFrame.unsubscribe(channel: name), on: token)
        }
        record.channel.finish()
    }

    /// Subscribe frames sent so far on any socket: channel and socket id (tests and diagnostics).
    package var sentSubscriptions: [(channel: String, socketID: String?)] { subscribeLog }

    /// Notes that the subscribe frame of `name` goes out on the current socket, and returns the
    /// position it resumes from: the last the app was given of the channel's history, if any.
    @discardableResult
    func noteSubscribeSent(_ name: String) -> HistoryPosition? {
        if subscribeLog.count >= 10_000 { subscribeLog.removeFirst(5_000) }
        subscribeLog.append((name, machine.state.socketID))
        records[name]?.subscribeSent = true
        let position = records[name]?.position
        records[name]?.resumedFrom = position
        return position
    }
}
