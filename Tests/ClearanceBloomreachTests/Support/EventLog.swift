import Clearance
import ClearanceBloomreach
import ClearanceTestSupport

/// Every event a source sends from the moment this is made.
final class EventLog: Sendable {
    private let received = Locked<[CustomerTokenEvent]>([])
    private let reader: Task<Void, Never>

    init(_ source: CustomerTokenSource) {
        let stream = source.events
        let received = received
        reader = Task { for await event in stream { received.withLock { $0.append(event) } } }
    }

    deinit { reader.cancel() }

    var events: [CustomerTokenEvent] { received.withLock { $0 } }
    var names: [String] { events.map(\.name) }

    /// Waits until the names received are exactly `expected`.
    func expect(_ expected: [String]) async throws {
        do {
            try await eventually("events \(expected)", timeout: .seconds(5)) { names == expected }
        } catch {
            throw ChildProcess.Failure("events were \(names), expected \(expected)")
        }
    }
}
