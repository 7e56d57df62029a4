import ClearanceSigning
import Logging
import HummingbirdWebSocket

/// The protocol logic of one connection: reacts to each message of its client in turn.
///
/// Replies go through the ``ConnectionOutbox`` (so they stay ordered with published events);
/// channel state goes through the hub's channel state; the timers and closing are the
/// ``ConnectionControl``'s. Owned by the connection's task, so its state needs no lock.
struct ConnectionSession {
    private struct Subscription {
        let kind: ChannelNameKind
        let member: PresenceMember?
    }

    /// What the hub's sessions share, given at construction (``Dependencies``).
    let shared: Dependencies
    /// The app as it was when the connection was admitted (``app`` is the app now).
    let admittedApp: HubApp
    let socketID: String
    let outbox: ConnectionOutbox
    let control: ConnectionControl
    let logger: Logger

    private var rateLimiter: ClientEventRateLimiter
    /// Subscribes and unsubscribes (``HubChannelLimits/subscriptionChangesPerSecond``).
    private var subscriptionChanges: SubscriptionRateLimiter
    private var subscriptions: [String: Subscription] = [:]
    private var signedInUserID: String?
    /// Whether the connection authorized itself (signed in, or subscribed to a private or
    /// presence channel): what an app with authorized connections waits for.
    private var authorized = false

    /// What a session uses of the hub, and nothing else: made once by the hub, shared by every
    /// connection's session (a reference, so a session costs no more memory than with the hub).
    final class Dependencies: Sendable {
        /// Who is subscribed and present (here and on the other nodes).
        let channels: HubChannelState
        /// Where the session's webhook events go (client events, cache misses).
        let webhooks: HubWebhooks
        /// The hub's subscriptions and each app's part of them.
        let subscriptions: SubscriptionBudget
        /// The live connections, told when one signs in or authorizes.
        let registry: ConnectionRegistry
        /// The users an app's terminate request keeps out for a while.
        let terminatedUsers: TerminatedUsers
        /// The hub's clock.
        let clock: any HubClock
        /// The hub's limits (a reload does not change them).
        let limits: HubLimits
        /// The apps served now (a reload swaps them).
        let apps: @Sendable () -> HubAppTable

        init(
            channels: HubChannelState, webhooks: HubWebhooks, subscriptions: SubscriptionBudget, registry: ConnectionRegistry,
            terminatedUsers: TerminatedUsers, clock: any HubClock, limits: HubLimits, apps: @escaping @Sendable () -> HubAppTable
        ) {
            self.channels = channels
            self.webhooks = webhooks
            self.subscriptions = subscriptions
            self.registry = registry
            self.terminatedUsers = terminatedUsers
            self.clock = clock
            self.limits = limits
            self.apps = apps
        }
    }

    init(shared: Dependencies, app: HubApp, socketID: String, outbox: ConnectionOutbox, control: ConnectionControl, logger: Logger) {
        self.shared = shared
        admittedApp = app
        self.socketID = socketID
        self.outbox = outbox
        self.control = control
        self.logger = logger
        rateLimiter = ClientEventRateLimiter(limit: app.limits.clientEventsPerSecond)
        subscriptionChanges = SubscriptionRateLimiter(
            burst: shared.limits.channels.maxChannelsPerConnection, perSecond: shared.limits.channels.subscriptionChangesPerSecond)
    }

    /// The app now: a reload may have given it another secret or limits since the connection was
    /// admitted (a removed or re-keyed app's connections are being closed: they keep the old one).
    private var app: HubApp {
        shared.apps().byID[admittedApp.id].flatMap { $0.key == admittedApp.key ? $0 : nil } ?? admittedApp
    }

    /// Handles one message of the client (ignored once the hub is closing the connection).
    ///
    /// Kept flat (one async frame above the channel state's): a connection's task keeps the memory of
    /// its deepest await for as long as it lives.
    mutating func handle(_ frame: WebSocketMessage) async {
        let now = shared.clock.now
        guard control.receivedFrame(at: now) else { return }
        guard case let .text(text) = frame else { return send(PusherFrame.error(.binaryMessage)) }
        let message: ClientMessage
        do {
            message = try ClientMessage.parse(text)
        } catch {
            send(PusherFrame.error(error))
            return
        }
        switch message {
        case .ping:
            send(PusherFrame.pong)
        case .pong:
            break
        case let .subscribe(channel, auth, channelData, resume):
            // A resume is a subscription like any other: the name, the signature and the limits first.
            guard admissible(channel, now: now), let subscription = authorized(channel: channel, auth: auth, channelData: channelData),
                  let took = takeSubscription(channel)
            else { return }
            let outcome = await shared.channels.subscribe(
                socketID: socketID, appID: admittedApp.id, channel: channel, member: subscription.member, maxPresenceMembers: app.limits.maxPresenceMembers,
                resume: resume, maxReplayBytes: Self.maxReplayBytes(shared.limits))
            subscribed(channel, subscription, outcome)
            if outcome.isNewSubscription, subscription.kind.requiresAuthorization { await authorize() }
            if took, !outcome.isNewSubscription { shared.subscriptions.release(appID: admittedApp.id, 1) }
            if outcome == .subscribedWithoutCachedEvent { shared.webhooks.emit(appID: admittedApp.id, .cacheMiss(channel: channel)) }
        case let .unsubscribe(channel):
            guard subscriptions.removeValue(forKey: channel) != nil else { return }
            subscriptionChanges.recordUnsubscribe(at: now)
            await shared.channels.unsubscribe(socketID: socketID, appID: admittedApp.id, channel: channel)
            shared.subscriptions.release(appID: admittedApp.id, 1)
            logger.debug("hub.channel.unsubscribed", metadata: ["channel": "\(channel)"])
        case let .signIn(auth, userData):
            await signIn(auth: auth, userData: userData)
        case let .clientEvent(name, channel, data, dataBytes):
            guard let frame = clientEventFrame(name: name, channel: channel, data: data, dataBytes: dataBytes, now: now) else { return }
            await shared.channels.publish(appID: admittedApp.id, channel: channel, frame: frame, excluding: socketID)
            guard shared.webhooks.wants(.clientEvent, appID: admittedApp.id) else { return }
            shared.webhooks.emit(appID: admittedApp.id, .clientEvent(
                channel: channel, event: name, data: WebhookEvent.clientData(raw: data), socketID: socketID,
                userID: subscriptions[channel]?.member?.id))
        }
    }

    /// The most bytes of missed events a resume sends at once: half of what a connection may
    /// leave unsent (``HubConnectionLimits/maxOutboundBytes``), so that the replay never closes
    /// it as a slow reader. A resume that missed more is told `recovered: false`.
    static func maxReplayBytes(_ limits: HubLimits) -> Int {
        limits.connections.maxOutboundBytes / 2
    }

    /// Whether the connection may subscribe to one more channel now: within
    /// ``HubChannelLimits/maxChannelsPerConnection`` and ``HubChannelLimits/subscriptionChangesPerSecond``
    /// (checked before the signature, which costs more). Otherwise the
    /// `pusher:subscription_error` is sent and the result is false.
    private mutating func admissible(_ channel: String, now: ContinuousClock.Instant) -> Bool {
        let failure: SubscriptionFailure
        if subscriptions[channel] == nil, subscriptions.count >= shared.limits.channels.maxChannelsPerConnection {
            failure = .limitReached(
                "This connection is already subscribed to the maximum of \(shared.limits.channels.maxChannelsPerConnection) channels: unsubscribe from one first.",
                status: 403)
        } else if !subscriptionChanges.allowSubscribe(at: now) {
            failure = .limitReached(
                "Too many subscribes and unsubscribes: the limit is \(shared.limits.channels.subscriptionChangesPerSecond) per second per connection "
                    + "after a burst of \(shared.limits.channels.maxChannelsPerConnection).",
                status: 429)
        } else {
            return true
        }
        logger.debug("hub.channel.refused", metadata: ["reason": "\(failure.type)", "status": "\(failure.status)"])
        send(PusherFrame.subscriptionError(channel: channel, failure: failure))
        return false
    }

    /// Whether one more of the hub's subscriptions (``HubChannelLimits/maxSubscriptions``, and the
    /// app's part of them) was taken for `channel` (false: the connection has it already); `nil`
    /// when the hub or the app holds its maximum, after the `pusher:subscription_error` (503) is
    /// sent, counted and logged (under the app when it is the app's part).
    private func takeSubscription(_ channel: String) -> Bool? {
        guard subscriptions[channel] == nil else { return false }
        guard let message = shared.subscriptions.take(appID: admittedApp.id) else { return true }
        send(PusherFrame.subscriptionError(channel: channel, failure: SubscriptionFailure.limitReached(message, status: 503)))
        return nil
    }

    /// The subscriptions this connection holds (given back to the hub when it ends).
    var subscriptionCount: Int { subscriptions.count }

    /// The subscription, when the channel name and signature are good; otherwise the
    /// `pusher:subscription_error` is sent and the result is `nil`.
    private func authorized(channel: String, auth: String?, channelData: String?) -> Subscription? {
        do {
            return try authorize(channel: channel, auth: auth, channelData: channelData)
        } catch {
            logger.debug("hub.channel.refused", metadata: ["channel": "\(channel)", "reason": "\(error.type)"])
            send(PusherFrame.subscriptionError(channel: channel, failure: error))
            return nil
        }
    }

    /// Records what the channel state made of the subscription.
    private mutating func subscribed(_ channel: String, _ subscription: Subscription, _ outcome: SubscribeOutcome) {
        switch outcome {
        case .subscribed, .subscribedWithoutCachedEvent:
            subscriptions[channel] = subscription
            logger.debug("hub.channel.subscribed", metadata: ["channel": "\(channel)"])
        case .alreadySubscribed, .unknownConnection:
            break
        case .presenceChannelFull:
            let failure = SubscriptionFailure.limitReached(
                "The presence channel already has the maximum of \(app.limits.maxPresenceMembers) members."
            )
            send(PusherFrame.subscriptionError(channel: channel, failure: failure))
        }
    }

    /// Checks the channel name and, for channels that need one, the signature.
    private func authorize(channel: String, auth: String?, channelData: String?) throws(SubscriptionFailure) -> Subscription {
        let kind: ChannelNameKind
        do {
            kind = try app.signer.limits.validate(channel)
        } catch {
            throw .invalidChannel(error.message)
        }
        switch kind {
        case .public:
            return Subscription(kind: kind, member: nil)
        case .serverToUser:
            guard let signedInUserID, channel == ChannelNameKind.serverToUserPrefix + signedInUserID else {
                throw .auth("#server-to-user- channels are only for the user the connection signed in as.", status: 403)
            }
            return Subscription(kind: kind, member: nil)
        case .private, .privateEncrypted, .presence:
            guard let auth else { throw .auth("The auth signature is missing.") }
            if kind == .presence, channelData == nil {
                throw .auth("Presence channels need channel_data.", status: 400)
            }
            do {
                try app.signer.checkChannelAuth(auth: auth, socketID: socketID, channelName: channel, channelData: channelData)
            } catch {
                switch error {
                case .invalidSignature:
                    throw .auth("Invalid signature: expected the HMAC-SHA256 of socket_id:channel_name (:channel_data for presence) with the app secret.")
                case .unknownKey:
                    throw .auth("Invalid signature: the auth key is not this app's key.")
                case .malformedAuth:
                    throw .auth("Invalid signature: auth must be key:signature.")
                default:
                    throw .auth(error.message, status: 400)
                }
            }
            if let signedInUserID, let refusal = terminated(signedInUserID) { throw .auth(refusal + ".", status: 403) }
            guard kind == .presence, let channelData else { return Subscription(kind: kind, member: nil) }
            let parsed: PresenceChannelData
            do {
                parsed = try PresenceChannelData(parsing: channelData)
            } catch {
                throw .auth(error.message, status: 400)
            }
            if let refusal = terminated(parsed.member.id) { throw .auth(refusal + ".", status: 403) }
            if let info = parsed.userInfoJSON, info.utf8.count > shared.limits.channels.maxPresenceUserInfoBytes {
                throw .limitReached("user_info is larger than \(shared.limits.channels.maxPresenceUserInfoBytes) bytes.")
            }
            return Subscription(kind: kind, member: parsed.member)
        }
    }

    private mutating func signIn(auth: String, userData: String) async {
        let user: PusherUserData
        do {
            try app.signer.checkUserAuth(auth: auth, socketID: socketID, userData: userData)
            user = try PusherUserData(parsing: userData)
        } catch {
            send(PusherFrame.error(.signInFailed(error.message)))
            return
        }
        if let signedInUserID, signedInUserID != user.id {
            send(PusherFrame.error(.signInFailed("This connection is already signed in as another user.")))
            return
        }
        if let refusal = terminated(user.id) {
            send(PusherFrame.error(.signInFailed(refusal + ": sign in again later with a new signature.")))
            return
        }
        let watchlist: [String]
        do {
            watchlist = try Watchlist.parse(userData: userData)
        } catch {
            send(PusherFrame.error(.signInFailed(error.reason)))
            return
        }
        signedInUserID = user.id
        await authorize()
        // Recorded before the client hears of it: a terminate from then on reaches this connection.
        await shared.registry.signedIn(socketID: socketID, userID: user.id)
        logger.debug("hub.user.signedIn", metadata: ["user_id": "\(user.id)", "watching": "\(watchlist.count)"])
        send(PusherFrame.signInSuccess(userData: userData))
        await shared.channels.signIn(socketID: socketID, appID: admittedApp.id, userID: user.id, watchlist: watchlist)
    }

    /// Why `userID` may not sign in or join now, when the app ended their connections within the
    /// grace period (``HubConnectionLimits/terminationGracePeriod``).
    private func terminated(_ userID: String) -> String? {
        guard shared.terminatedUsers.contains(appID: admittedApp.id, userID: userID, now: shared.clock.now) else { return nil }
        return "The app ended this user's connections less than \(shared.limits.connections.terminationGracePeriod) s ago"
    }

    /// The connection proved who it is: the authorization deadline no longer applies, and it no
    /// longer counts against its address's bound on connections that have not authorized.
    private mutating func authorize() async {
        guard !authorized else { return }
        authorized = true
        control.authorized()
        guard admittedApp.configuration.authorizedConnections else { return }
        await shared.registry.authorized(socketID: socketID)
    }

    /// The frame to relay for a client event, when the rules allow it; otherwise the error is
    /// sent and the result is `nil`.
    private mutating func clientEventFrame(name: String, channel: String, data: String, dataBytes: Int, now: ContinuousClock.Instant) -> String? {
        let app = app
        if rateLimiter.limit != app.limits.clientEventsPerSecond {
            rateLimiter = ClientEventRateLimiter(limit: app.limits.clientEventsPerSecond)
        }
        let refusal: HubProtocolError
        if !app.configuration.clientEvents {
            refusal = .clientEventsDisabled
        } else if name.utf8.count > shared.limits.channels.maxEventNameLength {
            refusal = .invalidField("event")
        } else if let subscription = subscriptions[channel] {
            switch subscription.kind {
            case .private, .presence:
                if dataBytes > shared.limits.channels.maxEventDataBytes {
                    refusal = .eventTooLarge(limit: shared.limits.channels.maxEventDataBytes)
                } else if !rateLimiter.allow(at: now) {
                    refusal = .clientEventRateLimited
                } else {
                    return PusherFrame.clientEvent(name: name, channel: channel, rawData: data, userID: subscription.member?.id)
                }
            case .privateEncrypted:
                refusal = .clientEventOnEncryptedChannel
            case .public, .serverToUser:
                refusal = .clientEventNotAllowed
            }
        } else {
            refusal = .clientEventNotSubscribed
        }
        send(PusherFrame.error(refusal))
        return nil
    }

    private func send(_ frame: String) {
        outbox.deliver(.frame(frame))
    }
}
