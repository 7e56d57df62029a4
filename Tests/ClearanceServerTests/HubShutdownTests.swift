import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// A planned restart seen from the hub: it stops listening before it closes anything, then
/// closes its connections with 4200 spread over `shutdownSpread`.
@Suite("Hub shutdown", .timeLimit(.minutes(1)))
struct HubShutdownTests {
    @Test func aStoppingHubRefusesNewConnectionsInsteadOfAcceptingThemWith4200() async throws {
        let hub = try await TestHub.start(TestHub.configuration(limits: TestHub.limits { $0.connections.shutdownSpread = 0.8 }))
        var clients: [TestWebSocketClient] = []
        for _ in 0..<20 { clients.append(try await TestHub.connect(hub).client) }
        let stopping = Task { await hub.stop() }
        // Once the first connection is closed, nothing answers on the port for the rest of the
        // drain: a client that comes back at once is refused by the operating system, instead of
        // being accepted only to be closed with 4200 again (and spending a retry on it).
        #expect(try await clients[0].next(event: "pusher:error").errorCode == 4200)
        let drainEnds = ContinuousClock.now + .milliseconds(500)
        var attempts = 0
        while ContinuousClock.now < drainEnds {
            // RawSocket throws only when connect() itself fails (a refused connection).
            #expect(throws: (any Error).self) { try RawSocket(host: "127.0.0.1", port: hub.port) }
            attempts += 1
            // sleep: the pace of the probes over the drain (a window of real sockets), not a wait.
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(attempts >= 5)
        for client in clients {
            #expect(try await client.closeCode() == 4200)
        }
        await stopping.value
    }

    @Test func closeFramesAreSpreadOverTheShutdownSpread() async throws {
        let hub = try await TestHub.start(TestHub.configuration(limits: TestHub.limits { $0.connections.shutdownSpread = 0.5 }))
        var clients: [TestWebSocketClient] = []
        for _ in 0..<40 { clients.append(try await TestHub.connect(hub).client) }
        let start = ContinuousClock.now
        let stopping = Task { await hub.stop() }
        let closedAt = try await withThrowingTaskGroup(of: Duration.self) { group in
            for client in clients {
                group.addTask {
                    let code = try await client.next(event: "pusher:error").errorCode
                    #expect(code == 4200)
                    return ContinuousClock.now - start
                }
            }
            return try await group.reduce(into: [Duration]()) { $0.append($1) }.sorted()
        }
        await stopping.value
        // Not all in the same instant: the first and the last are most of the half second apart.
        #expect(closedAt.last! - closedAt.first! >= .milliseconds(350), "close frames at \(closedAt)")
        #expect(closedAt.last! < TestTiming.slowed(.seconds(3)))
    }
}
