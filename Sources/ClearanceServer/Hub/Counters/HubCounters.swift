import Clearance

/// The hub's ``HubCounter``s, incremented where the hub refuses or cuts something, and its
/// ``HubGauge``s, what it holds now: read by anyone (tests, an operator's code, a metrics
/// exporter). One instance per hub; pass your own to ``HubService`` to read it while the hub runs
/// (gauges read 0 until it starts).
public final class HubCounters: Sendable {
    private let values = Locked([HubCounter: Int]())
    private let gauges = Locked([HubGauge: @Sendable () -> Int]())

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

    /// The current value of `gauge`; 0 before the hub starts.
    public func gauge(_ gauge: HubGauge) -> Int {
        gauges.withLock { $0[gauge] }?() ?? 0
    }

    /// Reads `gauge` from `read` from now on (the hub, when it starts).
    func register(_ gauge: HubGauge, _ read: @escaping @Sendable () -> Int) {
        gauges.withLock { $0[gauge] = read }
    }

    /// Adds `amount` (one by default) to `counter` and returns its new value.
    @discardableResult
    func increment(_ counter: HubCounter, by amount: Int = 1) -> Int {
        values.withLock { values in
            values[counter, default: 0] += amount
            return values[counter]!
        }
    }
}
