import ClearanceServer
import ClearanceTestSupport
import Foundation
import ServiceLifecycle
import Testing

@Suite("HubService", .timeLimit(.minutes(1)))
struct HubServiceTests {
    @Test func runsUntilGracefulShutdownThenClosesConnectionsWith4200() async throws {
        let (ready, readyContinuation) = AsyncStream<HubEndpoint>.makeStream()
        let service = HubService(configuration: TestHub.configuration(), logger: TestHub.quietLogger) { hub in
            readyContinuation.yield(hub)
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [service], logger: TestHub.quietLogger))
        let running = Task { try await group.run() }
        var iterator = ready.makeAsyncIterator()
        let hub = try #require(await iterator.next())

        let (client, socketID) = try await TestHub.connect(hub)
        try await TestHub.subscribe(client, socketID: socketID, channel: "news")
        await group.triggerGracefulShutdown()

        let error = try await client.next(event: "pusher:error")
        #expect(error.errorCode == 4200)
        #expect(try await client.closeCode() == 4200)
        try await running.value
        // The port is closed once the group has finished.
        #expect(throws: (any Error).self) { try RawWebSocket(host: "127.0.0.1", port: hub.port, pathAndQuery: "/app/test-key?protocol=7") }
    }
}
