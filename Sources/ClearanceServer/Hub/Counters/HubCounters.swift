import Clearance

/// The hub's ``HubCounter``s: incremented where the hub refuses or cuts something, read by
/// anyone (tests, an operator's code, a metrics exporter). One instance per hub; pass your own
/// to ``HubService`` to read it while the hub runs.
public final class HubCounters: Sendable {
    private let values = Locked([HubCounter: Int]())

    /// Counters at zero.
    public init() {}

    /// The current value of `counter`.
    public func value(_ counter: HubCounter) -> Int {
        values.withLock { $0[counter] ?? 0 }
    }

    /// Every counter's current value (zero ones included).
    public var snapshot: [HubCounter: Int] {
        values.withLock { values in
            Dictionary(uniqueKeysWithValues: HubCounter.allCases.map { ($0, values[$0] ?? 0) })
        }
    }

    /// Adds one to `counter` and returns its new value.
    @discardableResult
    func increment(_ counter: HubCounter) -> Int {
        values.withLock { values in
            values[counter, default: 0] += 1
            return values[counter]!
        }
    }
}
