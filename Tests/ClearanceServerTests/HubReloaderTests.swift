import Clearance
import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Hummingbird
import Testing

/// ``HubReloader`` on a hub in this process: what each change does to open connections, and
/// that a refused reload changes nothing.
@Suite("Hub: reload", .timeLimit(.minutes(2)))
struct HubReloaderTests {
    static let otherApp = HubAppConfiguration(id: "200002", key: "other-key", secret: "other-secret")

    /// Runs `body` with a hub of the test app and ``otherApp`` and its reloader.
    static func with(_ body: (HubServer, HubReloader, HubConfiguration) async throws -> Void) async throws {
        let configuration = TestHub.configuration(extraApps: [otherApp])
        let reloader = HubReloader()
        let hub = try await HubServer.start(configuration, logger: TestHub.quietLogger, reloader: reloader)
        try await withCleanup { try await body(hub, reloader, configuration) } cleanup: { await hub.stop() }
    }

    @Test func removingRekeyingAndDisablingCloseTheirAppsConnectionsOnly() async throws {
        try await Self.with { hub, reloader, configuration in
            let (kept, keptID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(kept, socketID: keptID, channel: "news")
            let (removed, _) = try await TestHub.connect(hub, key: Self.otherApp.key)

            var next = configuration
            next.apps.removeLast()
            let report = try await reloader.reload(next)
            #expect(report.removed == [Self.otherApp.id] && report.closedConnections == 1 && report.added.isEmpty, "\(report)")
            #expect(try await removed.closeCode() == 4001)
            // A new connection with the removed key is refused with 4001 too.
            let refused = try TestWebSocketClient(url: hub.webSocketURL(forKey: Self.otherApp.key))
            #expect(try await refused.closeCode() == 4001)

            // Re-keyed: the old key's connections close with 4001; the new key connects.
            var rekeyed = next
            rekeyed.apps[0].key = "new-test-key"
            let rekeyReport = try await reloader.reload(rekeyed)
            #expect(rekeyReport.rekeyed == [TestHub.appID], "\(rekeyReport)")
            #expect(try await kept.closeCode() == 4001)
            let (renewed, _) = try await TestHub.connect(hub, key: "new-test-key")

            // Disabled: 4003.
            var disabled = rekeyed
            disabled.apps[0].enabled = false
            let disableReport = try await reloader.reload(disabled)
            #expect(disableReport.disabled == [TestHub.appID], "\(disableReport)")
            #expect(try await renewed.closeCode() == 4003)
        }
    }

    @Test func aRefusedReloadChangesNothingAndHubWideChangesAreReportedAsNeedingARestart() async throws {
        try await Self.with { hub, reloader, configuration in
            let (client, socketID) = try await TestHub.connect(hub)
            try await TestHub.subscribe(client, socketID: socketID, channel: "news")
            var clash = configuration
            clash.apps[1].key = TestHub.key
            await #expect(throws: HubReloadError.self) { try await reloader.reload(clash) }
            do throws(HubReloadError) {
                _ = try await reloader.reload(clash)
            } catch {
                #expect(error.qualifiedCode == "hub.reload.configuration" && error.message.contains("Two apps have the key"), "\(error)")
            }
            var empty = configuration
            empty.apps = []
            await #expect(throws: HubReloadError.self) { try await reloader.reload(empty) }
            // Unchanged: the other app still connects, the test app still receives.
            _ = try await TestHub.connect(hub, key: Self.otherApp.key)
            try await TestHub.trigger(hub, event: "still", channels: ["news"], data: "1")
            _ = try await client.next(event: "still")

            var wider = configuration
            wider.limits.connections.maxConnections = 5
            wider.port = 1
            let report = try await reloader.reload(wider)
            #expect(report.needsRestart == ["port", "limits"], "\(report)")
            #expect(report.added.isEmpty && report.removed.isEmpty && report.updated.isEmpty, "\(report)")
            #expect("\(report)".contains("needs-restart=port,limits"))
        }
    }

    @Test func aRotatedSecretChecksTheHTTPAPIFromThenOn() async throws {
        try await Self.with { hub, reloader, configuration in
            var rotated = configuration
            rotated.apps[0].secret = "rotated-secret"
            let report = try await reloader.reload(rotated)
            #expect(report.updated == [TestHub.appID], "\(report)")
            let old = try await TestHTTP(hub).signed("GET", "/apps/\(TestHub.appID)/channels")
            #expect(old.status == 401)
            let signer = try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: "rotated-secret")
            #expect(try await TestHTTP(hub).signed("GET", "/apps/\(TestHub.appID)/channels", signer: signer).status == 200)
        }
    }

    @Test func aReloadAddsWebhooksSignedWithTheRotatedSecret() async throws {
        // A receiver that accepts only the new secret's signatures.
        let receiver = try await RecordingWebhookReceiver.start(secret: "rotated-secret")
        try await withCleanup {
            try await Self.with { hub, reloader, configuration in
                var next = configuration
                next.apps[0].secret = "rotated-secret"
                next.apps[0].webhooks = [WebhookTarget(url: receiver.url, events: [.channelOccupied])]
                let report = try await reloader.reload(next)
                #expect(report.updated == [TestHub.appID], "\(report)")
                let (client, socketID) = try await TestHub.connect(hub)
                try await TestHub.subscribe(client, socketID: socketID, channel: "hooked")
                try await eventually("the webhook signed with the new secret") { receiver.events == [.channelOccupied(channel: "hooked")] }
                await client.disconnect()
            }
        } cleanup: { await receiver.stop() }
    }

    @Test func aReloaderWithoutARunningHubSaysSo() async throws {
        await #expect(throws: HubReloadError.self) { try await HubReloader().reload(TestHub.configuration()) }
        #expect(HubReloadError.notRunning.qualifiedCode == "hub.reload.notRunning")
    }
}
