import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Hummingbird
import Logging
import Testing

/// A server that accepts the TCP connection but never answers the WebSocket upgrade (one
/// shutting down, say) must not hold the client in `connecting` for ever: swift-websocket's
/// connect has no timeout of its own, so the client gives the attempt up at `connectTimeout`.
@Suite("Connect deadline")
struct ConnectDeadlineTests {
    @Test func anUnansweredUpgradeIsGivenUpAtTheConnectTimeout() async throws {
        let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let router = Router()
        // The upgrade is held until the test ends: the client's connectTimeout must give it up.
        let answers = Gate()
        router.get("/app/{key}") { _, _ -> String in
            await answers.wait()
            return "never"
        }
        let server = try await RunningServer.start(router, logger: quiet)
        let client = ChannelClient(key: "k", options: ChannelClientOptions(
            endpoint: .host("127.0.0.1", port: server.port), connectTimeout: .milliseconds(500),
            reconnectPolicy: ReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(100), jitter: 0.1),
            logger: quiet))
        await client.connect()
        // Without the deadline the state would stay `connecting`; with it, attempts end and restart.
        try await eventually("the hung attempt given up", timeout: .seconds(10)) {
            await client.connectAttemptsGivenUp > 0
        }
        let start = ContinuousClock.now
        await client.disconnect()
        #expect(ContinuousClock.now - start < TestTiming.slowed(.seconds(5)))
        answers.open()
        await server.stop()
    }
}
