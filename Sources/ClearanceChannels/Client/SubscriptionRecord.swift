import Clearance
import ClearanceWire
import ClearanceSigning

/// What the client keeps for one channel: the handle, and the authorization state tied to the
/// socket it was made for.
struct SubscriptionRecord: Sendable {
    let channel: PusherChannel
    /// The presence member this client is (from `channel_data`), once authorized.
    var myUserID: String?
    /// The secretbox key of an encrypted channel, once authorized.
    var sharedSecret: [UInt8]?
    /// The in-flight authorization, shared by the subscription and any decryption re-authorization
    /// on the same socket.
    var flight: (ticket: StaleAuthorizationFilter.Ticket, flight: SingleFlight<ChannelAuthorization>)?
    /// Whether the subscribe frame went out on the current socket.
    var subscribeSent = false
    /// Re-authorization after an event failed to open, on the current socket.
    var decryptionRecovery = DecryptionRecovery.ready
    /// Events that failed to open while that re-authorization runs: retried with its key.
    var awaitingKey: [IncomingFrame] = []
    /// The last place in the channel's history the app was given (a hub that keeps one), kept
    /// across sockets: the next subscription resumes from it.
    var position: HistoryPosition?
    /// The position the subscribe frame on the current socket resumed from.
    var resumedFrom: HistoryPosition?
    /// Whether the next event may be the one at ``position`` itself: a cache channel's kept
    /// event, which follows a `subscription_succeeded` that did not recover (the app has not
    /// seen it, though its serial is the channel's position).
    var acceptsEventAtPosition = false

    /// What an event that fails to open may still do on this socket: a hostile or broken server
    /// must not turn each bad frame into an authorization request.
    enum DecryptionRecovery: Sendable, Equatable {
        /// Re-authorize once (the key may have rotated).
        case ready
        /// A re-authorization runs; events that fail wait for its key.
        case inFlight
        /// One re-authorization already did not help: report, do not ask again until an event opens.
        case spent
    }

    /// How many failed events wait for a re-authorization's key at most; the rest are reported.
    static let maximumAwaitingKey = 64

    init(channel: PusherChannel) {
        self.channel = channel
    }

    var kind: ChannelNameKind { channel.kind }

    /// The shared authorization for `ticket`, made anew for a new socket or after a timeout.
    mutating func flight(for ticket: StaleAuthorizationFilter.Ticket) -> SingleFlight<ChannelAuthorization> {
        if let current = flight, current.ticket == ticket { return current.flight }
        let fresh = SingleFlight<ChannelAuthorization>()
        flight = (ticket, fresh)
        return fresh
    }

    /// Drops `stale` (a flight that timed out) so the next attempt starts a new one.
    mutating func dropFlight(_ stale: SingleFlight<ChannelAuthorization>) {
        if let current = flight, current.flight === stale { flight = nil }
    }

    /// The socket ended: nothing of it carries over.
    mutating func socketEnded() {
        flight = nil
        subscribeSent = false
        decryptionRecovery = .ready
        awaitingKey = []
        resumedFrom = nil
        acceptsEventAtPosition = false
    }
}
