import Clearance
import Foundation

/// One ``AsyncGate`` per origin (scheme, host and port), made when first needed; past
/// ``idleSweepThreshold`` origins, the gates nobody uses are dropped when a new one is made.
final class OriginGates: Sendable {
    static let idleSweepThreshold = 256

    private let limit: Int
    private let gates = Locked<[String: AsyncGate]>([:])

    init(limit: Int) { self.limit = limit }

    /// How many origins have a gate now.
    var count: Int { gates.withLock { $0.count } }

    func gate(for url: URL?) -> AsyncGate {
        let origin = "\(url?.scheme?.lowercased() ?? "")://\(url?.host?.lowercased() ?? ""):\(url?.port ?? -1)"
        return gates.withLock { gates in
            if let gate = gates[origin] { return gate }
            if gates.count >= Self.idleSweepThreshold { gates = gates.filter { !$0.value.isIdle } }
            let gate = AsyncGate(limit: limit)
            gates[origin] = gate
            return gate
        }
    }
}
