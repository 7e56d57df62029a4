import ClearanceTestSupport
import Foundation
import ClearanceServer
import ClearanceSigning
import Testing

@Suite("Hub connections and close codes", .timeLimit(.minutes(1)))
struct HubConnectionTests {
    @Test(arguments: [5, 6, 7])
    func connectionEstablishedCarriesASocketIDAndTheActivityTimeout(_ version: Int) async throws {
        try await TestHub.with { hub in
            let client = try TestWebSocketClient(url: hub.webSocketURL(protocolVersion: version))
            let frame = try await client.next(event: "pusher:connection_established")
            // data is a string holding JSON, as hosted Pusher sends it.
            #expect(frame.rawData is String)
            let socketID = try #require(frame.dataObject["socket_id"] as? String)
            #expect(SocketIDFormat.isValid(socketID))
            #expect(frame.dataObject["activity_timeout"] as? Int == 120)
            await client.disconnect()
        }
    }

    @Test func socketIDsAreUnique() async throws {
        try await TestHub.with { hub in
            var ids = Set<String>()
            var clients: [TestWebSocketClient] = []
            for _ in 0..<20 {
                let (client, socketID) = try await TestHub.connect(hub)
                ids.insert(socketID)
                clients.append(client)
            }
            #expect(ids.count == 20)
            for client in clients { await client.disconnect() }
        }
    }

    @Test func answersPingWithPong() async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            client.send(#"{"event":"pusher:ping","data":{}}"#)
            _ = try await client.next(event: "pusher:pong")
            // pysher sends data as an empty string.
            client.send(#"{"event":"pusher:ping","data":""}"#)
            _ = try await client.next(event: "pusher:pong")
            await client.disconnect()
        }
    }

    @Test(arguments: [
        ("/app/unknown-key?protocol=7", HubCloseCode.appDoesNotExist),
        ("/not-pusher", .pathNotFound),
        ("/app/test-key", .noProtocolVersion),
        ("/app/test-key?protocol=abc", .invalidVersionFormat),
        ("/app/test-key?protocol=4", .unsupportedProtocolVersion),
        ("/app/test-key?protocol=8", .unsupportedProtocolVersion),
    ])
    func refusedRequestsGetAnErrorThenTheCloseCode(_ path: String, _ code: HubCloseCode) async throws {
        try await TestHub.with { hub in
            let client = try TestWebSocketClient(url: URL(string: hub.webSocketURL.absoluteString + path)!)
            let error = try await client.next(event: "pusher:error")
            #expect(error.errorCode == Int(code.rawValue))
            #expect(error.dataObject["message"] as? String == code.message)
            #expect(try await client.closeCode() == code.rawValue)
        }
    }

    @Test func disabledAppsAreClosedWith4003() async throws {
        try await TestHub.with(TestHub.configuration { $0.enabled = false }) { hub in
            let client = try TestWebSocketClient(url: hub.webSocketURL())
            let error = try await client.next(event: "pusher:error")
            #expect(error.errorCode == 4003)
            #expect(try await client.closeCode() == 4003)
        }
    }

    /// A hub whose apps come from a database shares its budgets even while it serves one app: the
    /// first app gets its part, not the whole hub, so the next one added finds room.
    @Test func aHubWaitingForAppsGivesItsFirstAppOnlyItsPart() async throws {
        var configuration = TestHub.configuration()
        configuration.limits.connections.maxConnections = 8  // a quarter (appShare): 2
        configuration.waitsForApps = true
        try await TestHub.with(configuration) { hub in
            let (first, _) = try await TestHub.connect(hub)
            let (second, _) = try await TestHub.connect(hub)
            let third = try TestWebSocketClient(url: hub.webSocketURL())
            #expect(try await third.next(event: "pusher:error").errorCode == 4004)
            #expect(try await third.closeCode() == 4004)
            await first.disconnect()
            await second.disconnect()
        }
        // The same hub with its apps in the file: its one app may use it all.
        configuration.waitsForApps = false
        try await TestHub.with(configuration) { hub in
            var clients: [TestWebSocketClient] = []
            for _ in 0..<3 { clients.append(try await TestHub.connect(hub).client) }
            for client in clients { await client.disconnect() }
        }
    }

    @Test func theAppConnectionQuotaClosesWith4004() async throws {
        try await TestHub.with(TestHub.configuration { $0.maxConnections = 1 }) { hub in
            let (first, _) = try await TestHub.connect(hub)
            let second = try TestWebSocketClient(url: hub.webSocketURL())
            #expect(try await second.next(event: "pusher:error").errorCode == 4004)
            #expect(try await second.closeCode() == 4004)
            await first.disconnect()
            // The slot is free again once the first connection is gone.
            let (third, _) = try await TestHub.connect(hub)
            await third.disconnect()
        }
    }

    @Test func theHubCapacityClosesWith4100() async throws {
        try await TestHub.with(TestHub.configuration(limits: TestHub.limits { $0.connections.maxConnections = 1 })) { hub in
            let (first, _) = try await TestHub.connect(hub)
            let second = try TestWebSocketClient(url: hub.webSocketURL())
            #expect(try await second.next(event: "pusher:error").errorCode == 4100)
            #expect(try await second.closeCode() == 4100)
            await first.disconnect()
        }
    }

    // The hub's timers run on a manual clock: the defaults (a ping after 120 s of silence, 30 s
    // for the answer) take no wall time, and nothing happens until the clock is moved.
    @Test func aSilentClientIsPingedThenClosedWith4201() async throws {
        let clock = ManualHubClock()
        try await TestHub.with(TestHub.configuration(), clock: clock) { hub in
            let (client, _) = try await TestHub.connect(hub)
            await clock.advance(by: .seconds(120))
            let ping = try await client.next(event: "pusher:ping", timeout: .seconds(10))
            #expect(ping.event == "pusher:ping")
            await clock.advance(by: .seconds(30))
            #expect(try await client.next(event: "pusher:error", timeout: .seconds(10)).errorCode == 4201)
            #expect(try await client.closeCode() == 4201)
        }
    }

    @Test func answeringThePingKeepsTheConnection() async throws {
        // The hub pings again only once the answer to its last ping has arrived (an unanswered
        // ping ends in 4201 instead), so each further ping is the proof that the pong counted:
        // the test waits for that, never for a time. The pong deadline is not under test here
        // (aSilentClientIsPingedThenClosedWith4201 is): it is long, so a run slowed by a
        // sanitizer or a loaded machine cannot miss it.
        let clock = ManualHubClock()
        try await TestHub.with(TestHub.configuration(), clock: clock) { hub in
            let (client, _) = try await TestHub.connect(hub)
            for _ in 0..<2 {
                await clock.advance(by: .seconds(120))
                _ = try await client.next(event: "pusher:ping", timeout: .seconds(10))
                client.send(#"{"event":"pusher:pong","data":{}}"#)
                // The hub answers a ping after it read the pong (one connection's frames in order).
                #expect(try await client.unexpectedFrameBeforePong() == nil)
            }
            await clock.advance(by: .seconds(120))
            let third = try await client.next(event: "pusher:ping", timeout: .seconds(10))
            #expect(third.event == "pusher:ping")
            await client.disconnect()
        }
    }

    @Test func withoutServerPingsInactivityClosesWith4202() async throws {
        let clock = ManualHubClock()
        let limits = TestHub.limits { $0.connections.serverPings = false; $0.connections.inactivityTimeout = 60 }
        try await TestHub.with(TestHub.configuration(limits: limits), clock: clock) { hub in
            let (client, _) = try await TestHub.connect(hub)
            await clock.advance(by: .seconds(60))
            #expect(try await client.next(event: "pusher:error", timeout: .seconds(10)).errorCode == 4202)
            #expect(try await client.closeCode() == 4202)
        }
    }

    @Test func aConnectionThatDoesNotAuthorizeInTimeClosesWith4009() async throws {
        let clock = ManualHubClock()
        let configuration = TestHub.configuration { $0.authorizedConnections = true; $0.authorizedConnectionTimeout = 30 }
        try await TestHub.with(configuration, clock: clock) { hub in
            let (client, _) = try await TestHub.connect(hub)
            await clock.advance(by: .seconds(30))
            let error = try await client.next(event: "pusher:error", timeout: .seconds(10))
            #expect(error.errorCode == 4009)
            #expect(error.dataObject["message"] as? String == "Connection not authorized within timeout")
            #expect(try await client.closeCode() == 4009)
        }
    }

    @Test func stoppingTheHubClosesConnectionsWith4200() async throws {
        let hub = try await TestHub.start()
        let (client, _) = try await TestHub.connect(hub)
        await hub.stop()
        #expect(try await client.next(event: "pusher:error").errorCode == 4200)
        #expect(try await client.closeCode() == 4200)
    }

    @Test(arguments: [
        "not json",
        "[1,2]",
        #"{"data":{}}"#,
        #"{"event":"pusher:subscribe"}"#,
        #"{"event":"pusher:subscribe","data":{"channel":42}}"#,
        #"{"event":"pusher:signin","data":{}}"#,
        #"{"event":"whatever"}"#,
        String(repeating: "[", count: 10_000),
    ])
    func malformedFramesGetAnErrorAndTheConnectionStays(_ text: String) async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            client.send(text)
            let error = try await client.next(event: "pusher:error")
            #expect(error.errorCode == nil)
            #expect(error.dataObject["message"] is String)
            client.send(#"{"event":"pusher:ping","data":{}}"#)
            _ = try await client.next(event: "pusher:pong")
            await client.disconnect()
        }
    }

    @Test func binaryFramesGetAnError() async throws {
        try await TestHub.with { hub in
            let (client, _) = try await TestHub.connect(hub)
            client.sendBinary([1, 2, 3])
            #expect(try await client.next(event: "pusher:error").errorCode == nil)
            await client.disconnect()
        }
    }

    @Test func anOversizedMessageClosesWith1009() async throws {
        let limits = TestHub.limits { $0.connections.maxMessageBytes = 4_096 }
        try await TestHub.with(TestHub.configuration(limits: limits)) { hub in
            let (client, _) = try await TestHub.connect(hub)
            client.send(#"{"event":"client-x","channel":"private-a","data":""# + String(repeating: "x", count: 5_000) + #""}"#)
            #expect(try await client.closeCode() == 1009)
            // The hub is still fine.
            let (other, _) = try await TestHub.connect(hub)
            await other.disconnect()
        }
    }
}
