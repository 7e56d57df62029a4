/// The node side of a ``BackplaneLink``: what the link tells the node's channel state.
protocol BackplaneMember: Sendable {
    /// The link is (again) up: queue `hello` and this node's whole state.
    func linkEstablished() async
    /// Messages this node queued were dropped (the database did not keep up): queue this node's
    /// whole state again, which replaces what the other nodes know of it.
    func resynchronize() async
    /// Messages from another node, in the order it sent them.
    func receive(_ messages: [BackplaneMessage], from node: String) async
    /// Forgets every node that is neither in `live` (fresh heartbeats) nor heard from within
    /// `silence`: nodes that died without saying goodbye.
    func forgetNodes(notIn live: Set<String>, silentFor silence: Duration) async
}
