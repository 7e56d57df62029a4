import ClearanceServer
import ClearanceSigning
import Foundation
import Hummingbird
import Testing

/// The Swift blocks of `ClearanceServer`'s doc comments: the hub and the minter run, the route
/// helpers compiled (their behaviour is `WebhookReceiverTests`', `AuthEndpointTests`' and the
/// customer-token tests' subject). `DocumentationTests` checks the documents show the marked
/// regions. This file does not import ClearanceWire: `AuthorizedUser(info:)` takes its cases
/// without the type's module.
@Suite("Doc examples: server")
struct ServerDocExamplesTests {
    /// The app's users, as `PusherAuthEndpoints`' doc comment looks them up.
    struct User: Sendable {
        let id: String
        let name: String
    }

    actor Users {
        func find(token: String) -> User? { token == "alice-token" ? User(id: "alice", name: "Alice") : nil }
    }

    /// The app's rooms, as `WebhookReceiver`'s doc comment closes them.
    actor Rooms {
        private(set) var closed: [String] = []
        func close(_ channel: String) { closed.append(channel) }
    }

    @Test func hubServer() async throws {
        let app = HubAppConfiguration(id: "100001", key: "app-key", secret: "a secret for the doc comment's hub")
        // snippet: begin
        let hub = try await HubServer.start(HubConfiguration(port: 0, apps: [app]))
        // connect clients to hub.webSocketURL(forKey: app.key), trigger through hub.httpURL
        await hub.stop()
        // snippet: end
        #expect(hub.port > 0)
        #expect(hub.webSocketURL(forKey: app.key).path.hasSuffix("/app/app-key"))
    }

    @Test func customerTokenMinter() async throws {
        let (keyID, secret) = ("private-key-id", "the private API key's secret, 32+ bytes")
        // snippet: begin
        let minter = await CustomerTokenMinter(key: try CustomerTokenKey(id: keyID, secret: secret))
        let jwt = try await minter.mint(customerIDs: ["registered": "jane@example.com"], ttl: 3600)
        // snippet: end
        #expect(jwt.split(separator: ".").count == 3)
    }

    static func pusherAuthEndpointsDocComment(signer: ChannelAuthSigner, users: Users, router: Router<BasicRequestContext>) {
        // snippet: begin
        let endpoints = PusherAuthEndpoints(signer: signer, identifier: BearerTokenIdentifier { token in
            await users.find(token: token)
        }) { request in
            guard let user = request.caller else { return .deny }
            return .allowAs(AuthorizedUser(id: user.id, info: .object(["name": .string(user.name)])))
        }
        endpoints.register(on: router)
        // snippet: end
    }

    static func webhookReceiverDocComment(appKey: String, appSecret: String, router: Router<BasicRequestContext>, rooms: Rooms) throws {
        // snippet: begin
        let receiver = try WebhookReceiver(key: appKey, secret: appSecret)
        receiver.register(on: router, path: "/pusher/webhooks") { payload in
            for event in payload.events {
                if case let .channelVacated(channel) = event { await rooms.close(channel) }
            }
        }
        // snippet: end
    }

    static func customerTokenMiddlewareDocComment(router: Router<BasicCustomerTokenRequestContext>, verifier: CustomerTokenVerifier) {
        // snippet: begin
        let inbox = router.group("webxp").add(middleware: CustomerTokenMiddleware(verifier: verifier))
        inbox.post("projects/{projectToken}/appinbox/fetch") { _, context in
            "inbox of \(context.customerToken?.customerIDs["registered"] ?? "?")"
        }
        // snippet: end
    }
}
