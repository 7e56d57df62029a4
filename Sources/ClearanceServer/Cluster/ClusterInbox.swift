/// What a ``ClusterTransport`` tells its node's hub: the node-sync side of a cluster, which the
/// hub owns (`hello`, a node's whole state between `sync-begin` and `sync-end`, `bye`).
///
/// The methods that hand the transport something to send (``linkEstablished(_:)``,
/// ``sendWholeState(_:)``, ``receive(_:from:answer:)``) call their closure on the hub's channel
/// state, in the same step that reads the state: queue the messages there, without waiting.
/// Nothing the hub publishes can then fall between the state it read and the queueing of it
/// (a change published in between would go out before a state that does not hold it, and the
/// state, which replaces what the others know of this node, would undo it).
public struct ClusterInbox: Sendable {
    let state: HubChannelState

    /// The hub's clock: a transport times its heartbeats and judges silent nodes on it, and
    /// stamps what it seals with its `date`, so that a test on a ``ManualHubClock`` moves them too.
    public var clock: any HubClock { state.clock }

    /// The link is (again) up: `send` gets the messages to send before any other (`hello`,
    /// which asks every other node for its whole state, then this node's own). Drop what the
    /// transport queued before, in `send`: the whole state replaces it.
    public func linkEstablished(_ send: @Sendable ([ClusterMessage]) -> Void) async {
        await state.linkEstablished(send)
    }

    /// `send` gets this node's whole state, which replaces what the other nodes know of it: for
    /// a transport that dropped a message that ``ClusterMessage/changesState``. Queue it in
    /// `send` whatever the transport's bounds.
    public func sendWholeState(_ send: @Sendable ([ClusterMessage]) -> Void) async {
        await state.sendWholeState(send)
    }

    /// Messages from `node`, in the order it sent them. `answer` gets what to send in return
    /// (this node's whole state, when `node` said `hello`), to be queued whatever the
    /// transport's bounds; it is not called when there is nothing to send.
    public func receive(_ messages: [ClusterMessage], from node: String, answer: @Sendable ([ClusterMessage]) -> Void = { _ in }) async {
        await state.receive(messages, from: node, answer: answer)
    }

    /// Forgets every node that is neither in `live` nor heard from within `silence`: nodes that
    /// died without saying goodbye (their members leave, their subscriptions stop counting).
    /// Returns the nodes it forgot.
    @discardableResult
    public func forgetNodes(notIn live: Set<String>, silentFor silence: Duration) async -> [String] {
        await state.forgetNodes(notIn: live, silentFor: silence)
    }
}
