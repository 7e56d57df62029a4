import Clearance
import ClearanceHTTP
import ClearanceServer
import ClearanceDevelopment
import ClearanceSigning
import Foundation
import HTTPTypes
import Logging

/// The demo's realtime part on the embedded Pusher-compatible hub: the auth endpoint and the
/// signed HTTP API. (The channel client's steps build on the same hub.)
struct RealtimeDemo {
    let report: DemoReport

    func run() async throws {
        report.begin("Realtime channel authorization on the embedded Pusher-compatible hub")
        let quiet = Logger.silent("clearance.demo.hub")
        let app = HubAppConfiguration(id: "100001", key: "demo-key", secret: HubConfiguration.randomSecret())
        let alice = DevelopmentUser(token: "alice-\(UUID().uuidString)", id: "alice", info: .object(["name": .string("Alice")]))
        let hub = try await DevelopmentHub(configuration: HubConfiguration(port: 0, apps: [app]), users: [alice]).start(logger: quiet)
        let signer = try ChannelAuthSigner(key: app.key, secret: app.secret)
        let rest = try RESTRequestSigner(appID: app.id, key: app.key, secret: app.secret)
        let authURL = hub.httpURL.appending(path: "/pusher/auth")
        let asAlice = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("user"), sources: ["user": StaticCredentialSource(.bearer(alice.token))]))
        let anonymous = AuthorizedClient(authorizer: try RequestAuthorizer(policy: AuthorizationPolicy(), sources: [:]))
        let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

        await report.step("server-based authorization: POST /pusher/auth with the user's Bearer token signs private-orders") {
            let (response, body) = try await asAlice.send(.post, authURL, headerFields: form, body: Data("socket_id=123.456&channel_name=private-orders".utf8))
            let auth = try Self.string("auth", in: body)
            let valid = signer.verifyChannelAuth(auth: auth, socketID: "123.456", channelName: "private-orders", channelData: nil)
            return (response.status == .ok && valid, "HTTP \(response.status.code); signature verifies: \(valid) (auth: \(app.key):\(Redactor.mask))")
        }

        await report.step("presence: the endpoint's channel_data names the signed-in user") {
            let (response, body) = try await asAlice.send(.post, authURL, headerFields: form, body: Data("socket_id=123.456&channel_name=presence-room".utf8))
            let channelData = try Self.string("channel_data", in: body)
            let auth = try Self.string("auth", in: body)
            let valid = signer.verifyChannelAuth(auth: auth, socketID: "123.456", channelName: "presence-room", channelData: channelData)
            return (response.status == .ok && valid && channelData.contains("\"alice\""), "channel_data: \(channelData); signature verifies: \(valid)")
        }

        await report.step("no token → 403 (a typed forbidden error), a bad socket id → 400, never a 500") {
            var denied = "not denied"
            do {
                _ = try await anonymous.send(.post, authURL, headerFields: form, body: Data("socket_id=123.456&channel_name=private-orders".utf8))
            } catch {
                denied = AuthorizationError(wrapping: error).qualifiedCode
            }
            let (bad, body) = try await asAlice.send(.post, authURL, headerFields: form, body: Data("socket_id=12;3&channel_name=private-orders".utf8))
            return (denied == "clearance.forbidden" && bad.status == .badRequest,
                    "without a token: \(denied)\nsocket_id \"12;3\": HTTP \(bad.status.code) \(String(decoding: body, as: UTF8.self))")
        }

        await report.step("HTTP API: a signed trigger is accepted; the same request with a tampered body is refused") {
            let path = "/apps/\(app.id)/events"
            let body = Data(#"{"name":"order-shipped","channels":["private-orders"],"data":"{\"id\":42}"}"#.utf8)
            let url = try rest.signedURL(method: "POST", baseURL: hub.httpURL, path: path, body: body)
            let json: HTTPFields = [.contentType: "application/json"]
            let (accepted, _) = try await anonymous.send(.post, url, headerFields: json, body: body)
            let tampered = Data(#"{"name":"order-shipped","channels":["private-orders"],"data":"{\"id\":43}"}"#.utf8)
            var refused = "accepted"
            do {
                _ = try await anonymous.send(.post, url, headerFields: json, body: tampered)
            } catch {
                refused = AuthorizationError(wrapping: error).qualifiedCode
            }
            return (accepted.status == .ok && refused == "clearance.unauthorized", "signed: HTTP \(accepted.status.code); tampered: \(refused)")
        }

        await hub.stop()
    }

    static func string(_ name: String, in body: Data) throws -> String {
        guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any], let value = object[name] as? String else {
            throw AuthorizationError.badResponse(HTTPErrorResponse(status: 200, body: body))
        }
        return value
    }
}
