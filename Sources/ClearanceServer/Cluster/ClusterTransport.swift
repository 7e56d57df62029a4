/// How the nodes of a cluster of hubs reach each other: the one thing a new engine (Redis,
/// NATS, …) writes. The hub decides everything else: what a node tells the others, what it
/// makes of what they tell it, and how nodes resynchronize (``ClusterMessage``, ``ClusterInbox``).
///
/// A transport must:
/// - hand each other node's messages to the inbox in the order that node published them;
/// - never hand a node its own messages;
/// - when its link is (re)established, send what ``ClusterInbox/linkEstablished(_:)`` hands it
///   before anything else, dropping what it queued while the link was down (stale: the node's
///   whole state replaces it);
/// - send what ``ClusterInbox/receive(_:from:answer:)`` answers (a node's whole state, asked for by
///   another node's `hello`) whatever its bounds;
/// - if it drops a message that ``ClusterMessage/changesState``, send
///   ``ClusterInbox/sendWholeState(_:)`` once it has caught up;
/// - queue what these three hand it inside their closure, without waiting: the closure runs in
///   the step that reads the hub's state, so nothing the hub publishes falls in between;
/// - tell the inbox which nodes are alive (``ClusterInbox/forgetNodes(notIn:silentFor:)``) when
///   it can tell that one died without saying goodbye.
///
/// See ``LoopbackCluster`` (in one process, for tests) and `PostgresCluster` (the
/// ClearanceServerPostgres module) for two of them.
public protocol ClusterTransport: Sendable {
    /// This node's id, unique in the cluster.
    var nodeID: String { get }

    /// Links this node to the others until ``shutdown(farewell:)``, handing `inbox` what
    /// arrives. The hub calls it once, before it accepts connections.
    func run(inbox: ClusterInbox) async throws

    /// Sends `messages`, in order, to every other node; never waits (a transport queues them,
    /// bounded, and drops what it cannot hold).
    func publish(_ messages: [ClusterMessage])

    /// Sends `farewell` after everything queued, as this node's last messages, and ends
    /// ``run(inbox:)`` (waiting a few seconds at most).
    func shutdown(farewell: [ClusterMessage]) async
}
