import Clearance

/// A cluster of hubs in one process, for tests: each ``join()`` makes the drivers of a new
/// node, whose hub reaches the others through memory, with the same node sync as any other
/// transport; the nodes share one occupancy and one webhook queue, as a database's would be. A test can cut and heal the links (``partition()``, ``heal()``), hold them up
/// (``hold()``, ``release()``), lose messages on purpose (``drop(_:)``), and kill a node
/// without a goodbye (``kill(_:)``). It is for tests: what a node publishes waits in memory
/// without a bound, and a node that joins during a partition reaches every node not cut off.
///
/// ```swift
/// let cluster = LoopbackCluster()
/// let a = try await HubServer.start(configuration, cluster: cluster.join())
/// let b = try await HubServer.start(configuration, cluster: cluster.join())
/// ```
public final class LoopbackCluster: Sendable {
    struct Node {
        /// Weak: the transport holds the cluster, and a node whose hub never ran must not keep
        /// the two alive (the hub's drivers hold the transport while it runs).
        weak var transport: LoopbackTransport?
        /// Set while the node's hub runs (it holds the hub's state, which holds the transport):
        /// ``left(_:)`` removes the node when its link ends.
        var inbox: ClusterInbox?
        var group = 0
        var alive = true
        /// Messages that change state were dropped on purpose: the node owes its whole state.
        var owesState = false
    }

    private struct State {
        var nodes: [String: Node] = [:]
        var dropping = false
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    let occupancy = LoopbackOccupancyLedger()
    /// The cluster's one webhook queue, as a database's would be: each target's events go out
    /// in order whichever node emitted them.
    let webhookQueue = InMemoryWebhookQueue()

    /// An empty cluster.
    public init() {}

    /// The drivers of a new node: give them to a hub (``HubService``, ``HubServer``).
    public func join() -> ClusterDrivers {
        let transport = LoopbackTransport(cluster: self)
        state.withLock { $0.nodes[transport.nodeID] = Node(transport: transport) }
        let webhookQueue = webhookQueue
        return ClusterDrivers(transport: transport, occupancy: LoopbackOccupancy(ledger: occupancy, node: transport.nodeID)) { _ in webhookQueue }
    }

    /// How many places (a channel, or a presence member, on a node) the shared occupancy holds:
    /// what the nodes recorded so far (a node records a change after it answered its client).
    package var occupancyPlaces: Int { occupancy.places }

    /// The ids of the nodes alive (``ClusterTransport/nodeID``), sorted.
    public var nodeIDs: [String] { state.withLock { $0.nodes.filter(\.value.alive).map(\.key).sorted() } }

    /// Cuts every link: each node serves its own connections and forgets the others (as once a
    /// real transport's node timeout passed). Messages sent meanwhile are lost.
    public func partition() async {
        let inboxes = state.withLock { state -> [(String, ClusterInbox)] in
            for (index, id) in state.nodes.keys.enumerated() { state.nodes[id]!.group = index + 1 }
            return state.nodes.compactMap { id, node in node.alive ? node.inbox.map { (id, $0) } : nil }
        }
        for (id, inbox) in inboxes { await inbox.forgetNodes(notIn: reachable(from: id), silentFor: .zero) }
    }

    /// Restores every link: each node says `hello` and sends its whole state, as after a reconnect.
    public func heal() async {
        let inboxes = state.withLock { state -> [(LoopbackTransport, ClusterInbox)] in
            for id in state.nodes.keys { state.nodes[id]!.group = 0 }
            return state.nodes.values.compactMap { node in
                guard node.alive, let transport = node.transport, let inbox = node.inbox else { return nil }
                return (transport, inbox)
            }
        }
        for (transport, inbox) in inboxes { await inbox.linkEstablished { transport.enqueue($0) } }
    }

    /// Holds every delivery until ``release()``: the links are slow.
    public func hold() {
        state.withLock { $0.held = true }
    }

    /// Lets held deliveries go, in order.
    public func release() {
        let waiting = state.withLock { state in
            state.held = false
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Loses every message while `dropping`; when it stops, each node that lost a change of its
    /// state sends its whole state again (as a transport that overflowed must).
    public func drop(_ dropping: Bool) async {
        let owing = state.withLock { state -> [(LoopbackTransport, ClusterInbox)] in
            state.dropping = dropping
            guard !dropping else { return [] }
            var owing: [(LoopbackTransport, ClusterInbox)] = []
            for (id, node) in state.nodes where node.owesState {
                state.nodes[id]!.owesState = false
                if let transport = node.transport, let inbox = node.inbox, node.alive { owing.append((transport, inbox)) }
            }
            return owing
        }
        for (transport, inbox) in owing { await inbox.sendWholeState { transport.enqueue($0) } }
    }

    /// Kills `nodeID` without a goodbye: nothing it sends arrives any more, the others forget
    /// it at once (as once a real transport's node timeout passed), and the channels only it
    /// occupied are vacated.
    public func kill(_ nodeID: String) async {
        let inboxes = state.withLock { state -> [(String, ClusterInbox)] in
            state.nodes[nodeID]?.alive = false
            return state.nodes.compactMap { id, node in node.alive ? node.inbox.map { (id, $0) } : nil }
        }
        for (id, inbox) in inboxes { await inbox.forgetNodes(notIn: reachable(from: id), silentFor: .zero) }
        occupancy.forget(node: nodeID)
    }

    // MARK: - For the transports

    func linked(_ nodeID: String, inbox: ClusterInbox) {
        state.withLock { $0.nodes[nodeID]?.inbox = inbox }
    }

    func left(_ nodeID: String) {
        state.withLock { $0.nodes[nodeID] = nil }
        occupancy.forget(node: nodeID)
    }

    /// The nodes `nodeID` reaches now (itself included).
    func reachable(from nodeID: String) -> Set<String> {
        state.withLock { state in
            guard let group = state.nodes[nodeID]?.group else { return [] }
            return Set(state.nodes.filter { $0.value.alive && $0.value.group == group }.map(\.key))
        }
    }

    /// Hands `messages` of `sender` to every node it reaches now, in turn; what a node answers
    /// (its whole state, after a `hello`) it sends in its turn.
    /// Whether `messages`, sent by `sender` now, are lost: while ``drop(_:)`` holds, what a node
    /// sends is lost as it is sent (a node that lost a change of its state owes it), not when its
    /// queue gets to it: a test that stops dropping right after sending knows what was lost.
    func losesAtSend(_ messages: [ClusterMessage], from sender: String) -> Bool {
        state.withLock { state in
            guard state.dropping else { return false }
            if messages.contains(where: \.changesState), state.nodes[sender] != nil { state.nodes[sender]!.owesState = true }
            return true
        }
    }

    func deliver(_ messages: [ClusterMessage], from sender: String) async {
        await waitWhileHeld()
        let peers = state.withLock { state -> [(LoopbackTransport, ClusterInbox)] in
            guard let from = state.nodes[sender], from.alive else { return [] }
            if state.dropping {
                if messages.contains(where: \.changesState) { state.nodes[sender]!.owesState = true }
                return []
            }
            return state.nodes.compactMap { id, node in
                guard id != sender, node.alive, node.group == from.group, let transport = node.transport, let inbox = node.inbox
                else { return nil }
                return (transport, inbox)
            }
        }
        for (transport, inbox) in peers {
            await inbox.receive(messages, from: sender) { transport.enqueue($0) }
        }
    }

    private func waitWhileHeld() async {
        await withCheckedContinuation { continuation in
            let go = state.withLock { state in
                guard state.held else { return true }
                state.waiting.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
    }
}
