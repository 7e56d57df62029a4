import ClearanceServer
import Foundation
import Testing

/// Webhook targets in a configuration: validated once, with an error that says what is wrong,
/// and never a header value in a log line.
@Suite("Webhook configuration")
struct WebhookConfigurationTests {
    private func configuration(_ targets: [WebhookTarget]) -> HubConfiguration {
        HubConfiguration(apps: [HubAppConfiguration(id: "app", key: "key", secret: "app-secret-value", webhooks: targets)])
    }

    private func file(_ webhooks: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-\(UUID().uuidString).json")
        try Data(#"{"apps":[{"id":"app","key":"key","secret":"secret","webhooks":\#(webhooks)}]}"#.utf8).write(to: url)
        return url
    }

    @Test func aFileWithWebhooksLoadsIntoTypedTargets() throws {
        let url = try file(#"[{"url":"https://hooks.example.com/p","events":["channel_occupied","member_added"],"headers":{"Authorization":"Bearer t"},"filter":{"channelPrefix":"presence-","channelSuffix":"-eu"}}]"#)
        defer { try? FileManager.default.removeItem(at: url) }
        let target = try #require(try HubConfiguration.load(contentsOf: url).apps.first?.webhooks.first)
        #expect(target.events == [.channelOccupied, .memberAdded])
        #expect(target.headers == ["Authorization": "Bearer t"])
        #expect(target.wants(.memberAdded(channel: "presence-room-eu", userID: "a")))
        #expect(!target.wants(.memberAdded(channel: "presence-room-us", userID: "a")))
        #expect(!target.wants(.memberAdded(channel: "private-room-eu", userID: "a")))
        #expect(!target.wants(.channelVacated(channel: "presence-room-eu")))
    }

    @Test func anUnknownEventNameIsRefusedByName() throws {
        let url = try file(#"[{"url":"https://hooks.example.com/p","events":["channel_occupied","channel_exploded"]}]"#)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: HubConfigurationError.unknownWebhookEvent("channel_exploded")) { try HubConfiguration.load(contentsOf: url) }
        #expect(HubConfigurationError.unknownWebhookEvent("channel_exploded").message.contains("known: channel_occupied"))
    }

    @Test(arguments: [
        (WebhookTarget(url: "hooks.example.com/p", events: [.channelOccupied]), HubConfigurationError.Code.invalidWebhookURL),
        (WebhookTarget(url: "ftp://hooks.example.com/p", events: [.channelOccupied]), .invalidWebhookURL),
        (WebhookTarget(url: "http://hooks.example.com/p", events: [.channelOccupied]), .insecureWebhookURL),
        (WebhookTarget(url: "https://hooks.example.com/p", events: []), .noWebhookEvents),
        (WebhookTarget(url: "https://hooks.example.com/p", events: [.channelOccupied], headers: ["x-pusher-signature": "0"]), .reservedWebhookHeader),
        (WebhookTarget(url: "https://hooks.example.com/p", events: [.channelOccupied], headers: ["Content-Type": "text/plain"]), .reservedWebhookHeader),
        (WebhookTarget(url: "https://hooks.example.com/p", events: [.channelOccupied], headers: ["X-Token": "a\r\nX-Evil: 1"]), .invalidWebhookHeader),
        (WebhookTarget(url: "https://hooks.example.com/p", events: [.channelOccupied], headers: ["Bad Name": "1"]), .invalidWebhookHeader),
    ])
    func anUnusableTargetIsRefused(_ target: WebhookTarget, _ code: HubConfigurationError.Code) {
        do {
            try configuration([target]).validate()
            Issue.record("\(target) was accepted")
        } catch {
            #expect(error.code == code)
            #expect(!error.message.contains("a\r\nX-Evil"))
        }
    }

    @Test func plainHTTPIsAllowedToLoopbackOrWhenTheTargetSaysSo() throws {
        try configuration([WebhookTarget(url: "http://127.0.0.1:9000/p", events: [.channelOccupied])]).validate()
        try configuration([WebhookTarget(url: "http://localhost/p", events: [.channelOccupied])]).validate()
        try configuration([WebhookTarget(url: "http://hooks.internal/p", events: [.channelOccupied], allowInsecureHTTP: true)]).validate()
    }

    @Test func theDescriptionNeverShowsHeaderValuesNorTheURLsCredentialsNorItsPath() {
        // A Slack-style URL carries its token in the path: only scheme, host and port are shown.
        let target = WebhookTarget(
            url: "https://user:pw@hooks.example.com:8443/services/T0K3NPATH?token=t0k3n", events: [.channelOccupied],
            headers: ["Authorization": "Bearer hunter2"])
        let text = "\(configuration([target]))"
        #expect(text.contains("Authorization: <redacted>"))
        #expect(text.contains("url: https://hooks.example.com:8443,"), "\(text)")
        #expect(target.redactedURL == "https://hooks.example.com:8443")
        for secret in ["hunter2", "t0k3n", "pw@", "app-secret-value", "T0K3NPATH", "/services"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
    }

    @Test func twoTargetsOfOneAppThatAreTheSameTargetAreRefused() {
        let target = WebhookTarget(url: "https://hooks.example.com/p", events: [.channelOccupied, .channelVacated])
        var same = WebhookTarget(url: "https://hooks.example.com/p", events: [.channelVacated, .channelOccupied])
        same.headers = ["X-Other": "v"]
        #expect(throws: HubConfigurationError.duplicateWebhookTarget(appID: "app", url: "https://hooks.example.com")) {
            try configuration([target, same]).validate()
        }
        try? configuration([target, WebhookTarget(url: "https://hooks.example.com/q", events: [.channelOccupied])]).validate()
    }

    @Test func webhookLimitsHaveRanges() {
        var limits = HubLimits()
        limits.webhooks.webhookAttemptTimeout = 0
        #expect(throws: HubConfigurationError.invalidLimit("webhookAttemptTimeout")) {
            try HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "k", secret: "s")], limits: limits).validate()
        }
        limits = HubLimits()
        limits.webhooks.maxQueuedWebhooks = 0
        #expect(throws: HubConfigurationError.invalidLimit("maxQueuedWebhooks")) {
            try HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "k", secret: "s")], limits: limits).validate()
        }
    }
}
