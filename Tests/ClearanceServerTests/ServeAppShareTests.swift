import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve` for several apps, attacked through one app's public key from Python raw
/// frames (`Tests/Interop/hub_flood.py`, websocket-client): each budget the apps share gives one
/// app at most its part (`appShare`, a quarter by default), so another app goes on as if nothing
/// happened, and the attacked app's refusals are counted and logged under its own id.
@Suite("clearance serve: one app cannot starve another (Python floods)", .timeLimit(.minutes(6)))
struct ServeAppShareTests {
    /// The other app, with a key and secret of its own.
    static let other = HubAppConfiguration(id: "5678", key: "other-key", secret: "other-secret")

    /// The flood's JSON line, once it came.
    static func floodResult(_ flood: ChildProcess) async throws -> [String: Any] {
        guard let line = await flood.line(timeout: .seconds(240), where: { $0.hasPrefix("{") }),
              let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            throw ChildProcess.Failure("hub_flood.py gave no result: \(flood.stderr.suffix(2_000)) \(PythonPeer.installHint)")
        }
        return object
    }

    /// A client of the other app that subscribes to a public, a private and a presence channel.
    static func otherAppSubscribesToEveryKind(_ serve: ServeProcess) async throws {
        let url = URL(string: "ws://127.0.0.1:\(serve.port)/app/\(other.key)?protocol=7")!
        let client = try TestWebSocketClient(url: url)
        let established = try await client.next(event: "pusher:connection_established")
        let socketID = try #require(established.dataObject["socket_id"] as? String)
        let signer = try ChannelAuthSigner(key: other.key, secret: other.secret)
        let presence = #"{"user_id":"bea"}"#
        for (channel, channelData) in [("news", nil), ("private-orders", nil), ("presence-room", presence)] as [(String, String?)] {
            var data: [String: String] = ["channel": channel]
            if channel != "news" { data["auth"] = try signer.authorizeChannel(socketID: socketID, channelName: channel, channelData: channelData).auth }
            if let channelData { data["channel_data"] = channelData }
            client.send(TestHub.frame(event: "pusher:subscribe", data: data))
            let answer = try await client.next(event: "pusher_internal:subscription_succeeded", channel: channel)
            #expect(answer.channel == channel)
        }
        await client.disconnect()
    }

    @Test func twoHundredAnonymousSocketsOfOneAppLeaveAnotherAppEveryKindOfSubscription() async throws {
        // The recipe as found: 200 sockets, 1,000 channels each, the hub's 200,000 subscriptions.
        // Under a sanitizer (everything several times slower), 50 sockets against 40,000.
        let sanitized = TestTiming.scale > 1
        let (sockets, maxSubscriptions) = sanitized ? (50, 40_000) : (200, 200_000)
        let part = maxSubscriptions / 4
        try await ServeProcess.with(limits: TestHub.limits { $0.maxSubscriptions = maxSubscriptions }, development: false, extraApps: [Self.other]) { serve in
            let flood = try PythonPeer.start("hub_flood.py", [
                "subscribe", "ws://127.0.0.1:\(serve.port)/app/\(TestHub.key)?protocol=7", "\(sockets)", "1000",
            ])
            try await withCleanup {
                let result = try await Self.floodResult(flood)
                #expect(result["established"] as? Int == sockets, "\(result)")
                #expect(result["succeeded"] as? Int == part, "\(result)")
                #expect((result["refused"] as? [String: Int])?["503"] == sockets * 1_000 - part, "\(result)")
                // While the flood holds its part, the other app subscribes to every kind of channel.
                try await Self.otherAppSubscribesToEveryKind(serve)
                #expect(serve.process.stderr.contains("hub.app.limit"), "\(serve.process.stderr.suffix(1_000))")
                #expect(serve.process.stderr.contains("app_id=\(TestHub.appID)"), "\(serve.process.stderr.suffix(1_000))")
                #expect(!serve.process.stderr.contains("hub.subscriptions.full"), "the hub's own budget never ran out")
            } cleanup: {
                await flood.stop(.kill)
            }
        }
    }

    @Test func twoThousandUnauthorizedConnectionsOfOneAppLeaveAnotherAppRoomToConnect() async throws {
        // The hub holds 2,000 connections (500 under a sanitizer); the app with authorized
        // connections gets a quarter of them, authorized or not.
        let connections = TestTiming.scale > 1 ? 500 : 2_000
        let limits = TestHub.limits { $0.maxConnections = connections }
        try await ServeProcess.with(limits: limits, development: false, extraApps: [Self.other], adjustApp: { app in
            app.authorizedConnections = true
            app.authorizedConnectionTimeout = 120
        }) { serve in
            let flood = try PythonPeer.start("hub_flood.py", [
                "connect", "ws://127.0.0.1:\(serve.port)/app/\(TestHub.key)?protocol=7", "\(connections)",
            ])
            try await withCleanup {
                let result = try await Self.floodResult(flood)
                #expect(result["established"] as? Int == connections / 4, "\(result)")
                #expect((result["refused"] as? [String: Int])?["4004"] == connections - connections / 4, "\(result)")
                try await Self.otherAppSubscribesToEveryKind(serve)
                #expect(serve.process.stderr.contains("hub.app.limit"), "\(serve.process.stderr.suffix(1_000))")
            } cleanup: {
                await flood.stop(.kill)
            }
        }
    }
}
