import Clearance
import Foundation

/// One node's link in a ``LoopbackCluster``: what it publishes goes, in order, to every node it
/// reaches (one task per node delivers its messages, so a slow receiver holds up only its sender).
final class LoopbackTransport: ClusterTransport {
    let nodeID = UUID().uuidString.lowercased()
    private let cluster: LoopbackCluster
    private let outgoing: AsyncStream<[ClusterMessage]>
    private let continuation: AsyncStream<[ClusterMessage]>.Continuation
    private let ended: AsyncStream<Void>
    private let endedContinuation: AsyncStream<Void>.Continuation
    private let started = Locked(false)

    init(cluster: LoopbackCluster) {
        self.cluster = cluster
        (outgoing, continuation) = AsyncStream.makeStream()
        (ended, endedContinuation) = AsyncStream.makeStream()
    }

    func run(inbox: ClusterInbox) async {
        started.withLock { $0 = true }
        defer {
            cluster.left(nodeID)
            endedContinuation.finish()
        }
        cluster.linked(nodeID, inbox: inbox)
        await inbox.linkEstablished { self.enqueue($0) }
        for await messages in outgoing {
            await cluster.deliver(messages, from: nodeID)
        }
    }

    func publish(_ messages: [ClusterMessage]) {
        enqueue(messages)
    }

    func enqueue(_ messages: [ClusterMessage]) {
        guard !messages.isEmpty, !cluster.losesAtSend(messages, from: nodeID) else { return }
        continuation.yield(messages)
    }

    func shutdown(farewell: [ClusterMessage]) async {
        enqueue(farewell)
        continuation.finish()
        guard started.withLock({ $0 }) else { return }
        for await _ in ended {}
    }
}
