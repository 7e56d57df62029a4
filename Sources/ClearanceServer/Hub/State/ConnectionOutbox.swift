import ClearanceSigning

/// The way into one connection: whatever is delivered here is written to its WebSocket, in the
/// order of the calls.
///
/// Delivering never waits: the frame is handed to the connection's channel at once (no task per
/// connection sits between them). A connection that leaves more than
/// ``HubConnectionLimits/maxOutboundBytes`` unsent is closed with 4100: a client that does not read holds
/// no more of the hub's memory than that.
public struct ConnectionOutbox: Sendable {
    /// Something to send to the client.
    public enum Delivery: Sendable, Hashable {
        /// A ready-made frame, encoded once and shared by every connection it goes to.
        case encoded(EncodedFrame)
        /// `pusher_internal:subscription_succeeded`, with the member list for presence channels
        /// (one connection's: encoded by its sink).
        case subscriptionSucceeded(channel: String, members: [PresenceMember]?)

        /// A frame from its text (encoded now: deliver the same value to many connections to
        /// share one encoding).
        public static func frame(_ text: String) -> Delivery {
            .encoded(EncodedFrame(text))
        }

        /// `pusher_internal:member_added`, encoded once for every subscriber it goes to.
        public static func memberAdded(channel: String, member: PresenceMember) -> Delivery {
            frame(PusherFrame.memberAdded(channel: channel, member: member))
        }

        /// `pusher_internal:member_removed`, encoded once for every subscriber it goes to.
        public static func memberRemoved(channel: String, userID: String) -> Delivery {
            frame(PusherFrame.memberRemoved(channel: channel, userID: userID))
        }

        /// The frame's text.
        var text: String {
            switch self {
            case let .encoded(frame):
                frame.text
            case let .subscriptionSucceeded(channel, members):
                PusherFrame.subscriptionSucceeded(channel: channel, members: members)
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

    /// As ``close(_:)``, with `reason` in the close frame instead of the code's own message.
    func close(_ code: HubCloseCode, reason: String) {
        sink.close(code, reason: reason)
    }

    /// Bytes delivered and not yet taken by the client's socket.
    var unsentBytes: Int { sink.unsentBytes }

    /// The connection ended: nothing is delivered any more.
    func finish() {
        sink.finish()
    }
}
