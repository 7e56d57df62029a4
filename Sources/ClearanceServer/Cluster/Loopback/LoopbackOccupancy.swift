import Clearance

/// A ``LoopbackCluster``'s occupancy: which nodes have subscribers of each channel, shared by
/// the nodes as a database would be (partitions do not cut it).
final class LoopbackOccupancyLedger: Sendable {
    private struct Key: Hashable {
        let appID: String
        let channel: String
        /// A presence member's place; nil for the channel's.
        let userID: String?
    }

    private struct State {
        var nodes: [Key: Set<String>] = [:]
        var emitters: [String: any WebhookEmitter] = [:]
        /// Changes recorded before the node's hub ran (its emitter not known yet).
        var pending: [String: [ChannelOccupancyChange]] = [:]
        /// Each running node's ``LoopbackOccupancy/run(emitting:)``, until it stops.
        var running: [String: CheckedContinuation<Void, Never>] = [:]
        var stopped: Set<String> = []
    }

    private let state = Locked(State())

    func attach(_ emitter: any WebhookEmitter, node: String) {
        let pending = state.withLock { state in
            state.emitters[node] = emitter
            return state.pending.removeValue(forKey: node) ?? []
        }
        for change in pending { record(change, node: node) }
    }

    /// How many places (a channel, or a presence member, on a node) the ledger holds.
    var places: Int {
        state.withLock { $0.nodes.values.reduce(0) { $0 + $1.count } }
    }

    /// Waits until ``detach(node:)``.
    func runUntilDetached(node: String) async {
        await withCheckedContinuation { continuation in
            let stopped = state.withLock { state in
                guard !state.stopped.contains(node) else { return true }
                state.running[node] = continuation
                return false
            }
            if stopped { continuation.resume() }
        }
    }

    func detach(node: String) {
        let running = state.withLock { state in
            state.emitters[node] = nil
            state.stopped.insert(node)
            return state.running.removeValue(forKey: node)
        }
        running?.resume()
    }

    /// The first node of a channel emits `channel_occupied`, the last `channel_vacated`.
    func record(_ change: ChannelOccupancyChange, node: String) {
        let emit: (any WebhookEmitter, String, WebhookEvent)? = state.withLock { state in
            guard let emitter = state.emitters[node] else {
                state.pending[node, default: []].append(change)
                return nil
            }
            let (appID, channel, userID) = change.place
            let key = Key(appID: appID, channel: channel, userID: userID)
            if change.isGain {
                let first = state.nodes[key, default: []].isEmpty
                state.nodes[key, default: []].insert(node)
                return first ? (emitter, appID, change.event) : nil
            }
            guard state.nodes[key]?.remove(node) != nil else { return nil }
            guard state.nodes[key]!.isEmpty else { return nil }
            state.nodes[key] = nil
            return (emitter, appID, change.event)
        }
        if let (emitter, appID, event) = emit { emitter.emit(appID: appID, event) }
    }

    /// Removes a dead node's places: its members no other node has are removed, then the
    /// channels only it occupied are vacated, told by another node.
    func forget(node: String) {
        let vacated = state.withLock { state -> [(any WebhookEmitter, String, WebhookEvent)] in
            state.emitters[node] = nil
            state.pending[node] = nil
            guard let emitter = state.emitters.sorted(by: { $0.key < $1.key }).first?.value else {
                state.nodes = state.nodes.compactMapValues { nodes in
                    let left = nodes.subtracting([node])
                    return left.isEmpty ? nil : left
                }
                return []
            }
            var vacated: [(any WebhookEmitter, String, WebhookEvent)] = []
            for (key, nodes) in state.nodes.sorted(by: { ($0.key.userID == nil ? 1 : 0) < ($1.key.userID == nil ? 1 : 0) })
            where nodes.contains(node) {
                if nodes.count == 1 {
                    state.nodes[key] = nil
                    let loss = ChannelOccupancyChange.loss(appID: key.appID, channel: key.channel, userID: key.userID)
                    vacated.append((emitter, key.appID, loss.event))
                } else {
                    state.nodes[key]!.remove(node)
                }
            }
            return vacated
        }
        for (emitter, appID, event) in vacated { emitter.emit(appID: appID, event) }
    }
}

/// One node's view of a ``LoopbackOccupancyLedger``.
struct LoopbackOccupancy: ClusterOccupancy {
    let ledger: LoopbackOccupancyLedger
    let node: String

    func record(_ change: ChannelOccupancyChange) {
        ledger.record(change, node: node)
    }

    func run(emitting webhooks: any WebhookEmitter) async {
        ledger.attach(webhooks, node: node)
        // Nothing to do meanwhile: the ledger decides as changes are recorded.
        await ledger.runUntilDetached(node: node)
    }

    func stop(timeout: Duration) async {
        ledger.detach(node: node)
    }
}
