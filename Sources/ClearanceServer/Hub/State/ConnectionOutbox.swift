import ClearanceSigning

/// The way into one connection: whatever is delivered here is written to its WebSocket, in
/// order, by the connection's writer task.
///
/// Delivering never waits. Each connection buffers a bounded number of frames
/// (``HubLimits/maxQueuedFrames``); a connection that reads so slowly that its buffer overflows
/// is dropped (a close code could not reach a client that does not read).
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
    }

    enum Item: Sendable {
        case delivery(Delivery)
        case close(HubCloseCode)
    }

    private let continuation: AsyncStream<Item>.Continuation
    private let onOverflow: @Sendable () -> Void

    init(continuation: AsyncStream<Item>.Continuation, onOverflow: @escaping @Sendable () -> Void) {
        self.continuation = continuation
        self.onOverflow = onOverflow
    }

    /// Queues `delivery` for the client. After the connection ends, this does nothing.
    public func deliver(_ delivery: Delivery) {
        enqueue(.delivery(delivery))
    }

    func close(_ code: HubCloseCode) {
        enqueue(.close(code))
    }

    func finish() {
        continuation.finish()
    }

    private func enqueue(_ item: Item) {
        if case .dropped = continuation.yield(item) {
            onOverflow()
        }
    }
}
