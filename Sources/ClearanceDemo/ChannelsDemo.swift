import AsyncHTTPClient
import Clearance
import ClearanceChannels
import ClearanceHTTP
import ClearanceServer
import ClearanceDevelopment
import ClearanceSigning
import Foundation
import HTTPTypes
import Logging

/// The demo's channel-client part, on the embedded hub: public, private and presence
/// subscriptions through the server-based authorizer, a denied channel with its error, a hub
/// restart with automatic re-authorization, and presence members joining and leaving.
struct ChannelsDemo {
    let report: DemoReport

    private static let appID = "100001", key = "demo-key"

    func run() async throws {
        report.begin("Channel client with server-based authorization on the embedded hub")
        let quiet = Logger.silent("clearance.demo.channels")
        let secret = HubConfiguration.randomSecret()
        let alice = DevelopmentUser(token: "alice-\(UUID().uuidString)", id: "alice", info: .object(["name": .string("Alice")]))
        let bob = DevelopmentUser(token: "bob-\(UUID().uuidString)", id: "bob", info: .object(["name": .string("Bob")]))
        func developmentHub(port: Int) -> DevelopmentHub {
            DevelopmentHub(
                configuration: HubConfiguration(port: port, apps: [HubAppConfiguration(id: Self.appID, key: Self.key, secret: secret)], limits: HubLimits { $0.connections.closeTimeout = 1 }),
                users: [alice, bob])
        }
        var hub = try await developmentHub(port: 0).start(logger: quiet)
        // One request per connection, idle connections closed fast: nothing lingers across a hub restart.
        var httpConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        httpConfiguration.maximumUsesPerConnection = 1
        httpConfiguration.connectionPool.idleTimeout = .milliseconds(200)
        let httpClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpConfiguration)
        let http = AsyncHTTPClientHTTPTransport(client: httpClient, timeout: .seconds(10))
        let rest = try RESTRequestSigner(appID: Self.appID, key: Self.key, secret: secret)
        let port = hub.port

        func options(_ authorizer: any ChannelAuthorizer) -> ChannelClientOptions {
            ChannelClientOptions(
                endpoint: .host("127.0.0.1", port: port), connectTimeout: .seconds(5), authorizer: authorizer,
                authorizationTimeout: .seconds(5),
                reconnectPolicy: ReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500), jitter: 0.1, restartRetryInterval: .milliseconds(200)),
                logger: quiet)
        }
        func authorizer(_ token: String?) throws -> ServerChannelAuthorizer {
            try ServerChannelAuthorizer(
                endpoint: URL(string: "http://127.0.0.1:\(port)/pusher/auth")!,
                credentialSource: token.map { StaticCredentialSource(.bearer($0)) }, transport: http)
        }
        func trigger(_ event: String, on channel: String) async throws -> Int {
            let body = try JSONSerialization.data(withJSONObject: ["name": event, "channels": [channel], "data": #"{"demo":true}"#], options: [.sortedKeys])
            let url = try rest.signedURL(method: "POST", baseURL: URL(string: "http://127.0.0.1:\(port)")!, path: rest.eventsPath, body: body)
            return try await http.send(HTTPRequest(method: .post, url: url, headerFields: [.contentType: "application/json"]), body: body).0.status.code
        }
        func waitFor(_ what: String, seconds: Double = 10, _ condition: () async -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while ContinuousClock.now < deadline {
                if await condition() { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw AuthorizationError.unavailable(reason: "timed out waiting for \(what)")
        }

        let client = ChannelClient(key: Self.key, options: options(try authorizer(alice.token)))
        let names = ["news", "private-orders", "presence-room"]
        var channels: [PusherChannel] = []
        for name in names { channels.append(await client.subscribe(name)) }   // queued before connecting

        await report.step("public, private and presence channels subscribed; the private ones authorized by the app's server") {
            await client.connect()
            for channel in channels { try await channel.subscribed() }
            var received: [String] = []
            for channel in channels {
                let stream = channel.bind(event: "greeting")
                let status = try await trigger("greeting", on: channel.name)
                var iterator = stream.makeAsyncIterator()
                if status == 200, let event = await iterator.next() { received.append(event.channel) }
            }
            let socket = await client.socketID ?? "?"
            return (received == names, "socket \(socket); subscribed: \(names.joined(separator: ", "))\nevents triggered through the signed HTTP API arrived on: \(received.joined(separator: ", "))")
        }

        await report.step("a channel the server refuses fails with its own typed error (status kept), never silently") {
            let anonymous = ChannelClient(key: Self.key, options: options(try authorizer(nil)))
            let denied = await anonymous.subscribe("private-payroll")
            await anonymous.connect()
            var detail = "no error"
            var ok = false
            do throws(ChannelError) {
                try await denied.subscribed()
            } catch {
                detail = "\(error.qualifiedCode) (HTTP \(error.status.map(String.init) ?? "-")): \(error.message)"
                ok = error.status == 403
            }
            await anonymous.disconnect()
            return (ok, detail)
        }

        await report.step("presence: bob joins and leaves; alice's member list follows") {
            let presence = channels[2]
            var changes = presence.members.makeAsyncIterator()
            _ = await changes.next()  // the current snapshot
            let bobClient = ChannelClient(key: Self.key, options: options(try authorizer(bob.token)))
            let bobRoom = await bobClient.subscribe("presence-room")
            await bobClient.connect()
            try await bobRoom.subscribed()
            var seen: [String] = []
            while seen.count < 1, let change = await changes.next() {
                if case .added(let member) = change { seen.append("+\(member.id)") }
            }
            let countWithBob = presence.currentMembers.count
            await bobClient.disconnect()
            while seen.count < 2, let change = await changes.next() {
                if case .removed(let member) = change { seen.append("-\(member.id)") }
            }
            return (seen == ["+bob", "-bob"] && countWithBob == 2, "alice saw: \(seen.joined(separator: " ")); members while bob was there: \(countWithBob)")
        }

        await report.step("hub restart: the client reconnects and re-authorizes every private channel with the new socket id") {
            let before = await client.socketID
            await hub.stop()
            var restarted: HubServer?
            for _ in 0..<100 where restarted == nil {
                restarted = try? await developmentHub(port: port).start(logger: quiet)
                if restarted == nil { try await Task.sleep(for: .milliseconds(20)) }
            }
            guard let restarted else { return (false, "the hub did not restart on port \(port)") }
            hub = restarted
            try await waitFor("re-subscription") {
                let socket = await client.socketID
                return socket != nil && socket != before && channels.allSatisfy { $0.state.isSubscribed }
            }
            let after = await client.socketID ?? "?"
            let sent = await client.sentSubscriptions.filter { $0.socketID == after && $0.channel != "news" }.map(\.channel)
            let stale = await client.staleAuthorizationsDiscarded
            return (Set(sent) == ["private-orders", "presence-room"],
                    "socket \(before ?? "?") → \(after); re-authorized: \(sent.sorted().joined(separator: ", ")); stale authorizations discarded: \(stale)")
        }

        await client.disconnect()
        await hub.stop()
        try await httpClient.shutdown()
    }
}
