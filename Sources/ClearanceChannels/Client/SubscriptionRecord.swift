import Clearance
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
    }
}
