import ClearanceSigning

/// The way into one connection: whatever is delivered here is written to its WebSocket, in the
/// order of the calls.
///
/// Delivering never waits: the frame is handed to the connection's channel at once (no task per
/// connection sits between them). A connection that reads so slowly that
/// ``HubLimits/maxQueuedFrames`` frames pile up beyond the channel's own buffer is dropped (a
/// close code could not reach a client that does not read).
public struct ConnectionOutbox: Sendable {
    /// Something to send to the client.
    public enum Delivery: Sendable, Hashable {
        /// A ready-made frame (encoded once, sent to many).
        case frame(String)
        /// `pusher_internal:subscription_succeeded`, with the member list for presence channels.
        case subscriptionSucceeded(channel: String, members: [PresenceMember]?)
        /// `pusher_internal:member_added`.
        case memberAdded(channel: String, member: PresenceMember)
        /// `pusher_internal:member_removed`.
        case memberRemoved(channel: String, userID: String)

        /// The frame's text.
        var text: String {
            switch self {
            case let .frame(text):
                text
            case let .subscriptionSucceeded(channel, members):
                PusherFrame.subscriptionSucceeded(channel: channel, members: members)
            case let .memberAdded(channel, member):
                PusherFrame.memberAdded(channel: channel, member: member)
            case let .memberRemoved(channel, userID):
                PusherFrame.memberRemoved(channel: channel, userID: userID)
            }
        }
    }

    private let sink: any ConnectionSink

    init(sink: any ConnectionSink) {
        self.sink = sink
    }

    /// Sends `delivery` to the client. After the connection is closing or ended, this does nothing.
    public func deliver(_ delivery: Delivery) {
        sink.deliver(delivery)
    }

    /// Closes with `code` after what was delivered before; nothing is delivered afterwards.
    func close(_ code: HubCloseCode) {
        sink.close(code)
    }

    /// The connection ended: nothing is delivered any more.
    func finish() {
        sink.finish()
    }
}
