import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Testing

/// CORS on the auth endpoints, over real HTTP: the development hub's (the first app's
/// `allowedOrigins`) and ``PusherAuthEndpoints`` mounted by an app with `cors:`. Only allowed
/// origins get CORS headers; another origin's preflight is a 403.
@Suite("Auth endpoints: CORS for allowed origins", .timeLimit(.minutes(1)))
struct AuthEndpointCORSTests {
    private static let form = "socket_id=1.2&channel_name=private-orders"
    private static let bearer = "Bearer alice-token"

    private func preflight(_ http: TestHTTP, _ path: String = "/pusher/auth", origin: String, requesting headers: String? = "authorization") async throws -> HTTPResult {
        var fields = ["Origin": origin, "Access-Control-Request-Method": "POST"]
        if let headers { fields["Access-Control-Request-Headers"] = headers }
        return try await http.raw("OPTIONS", path, headers: fields)
    }

    private func post(_ http: TestHTTP, _ path: String = "/pusher/auth", origin: String?) async throws -> HTTPResult {
        var headers = ["Authorization": Self.bearer]
        if let origin { headers["Origin"] = origin }
        return try await http.form(path, path == "/pusher/auth" ? Self.form : "socket_id=1.2", headers: headers)
    }

    @Test func anAllowedOriginGetsThePreflightAndThePostAnswered() async throws {
        try await TestHub.with(TestHub.configuration { $0.allowedOrigins = ["http://127.0.0.1:8080"] }) { hub in
            let http = TestHTTP(hub)
            for path in ["/pusher/auth", "/pusher/user-auth"] {
                let answer = try await preflight(http, path, origin: "http://127.0.0.1:8080", requesting: "authorization, content-type")
                #expect(answer.status == 204, "\(path)")
                #expect(answer.headers[.accessControlAllowOrigin] == "http://127.0.0.1:8080")
                #expect(answer.headers[.accessControlAllowMethods] == "POST")
                #expect(answer.headers[.accessControlAllowHeaders] == "authorization, content-type")
                #expect(answer.headers[.accessControlMaxAge] == "600")
                #expect(answer.headers[.vary] == "Origin")
                #expect(answer.headers[.accessControlAllowCredentials] == nil)

                let signed = try await post(http, path, origin: "http://127.0.0.1:8080")
                #expect(signed.status == 200, "\(path): \(signed.body)")
                #expect(signed.json["auth"] is String)
                #expect(signed.headers[.accessControlAllowOrigin] == "http://127.0.0.1:8080")
                #expect(signed.headers[.vary] == "Origin")
            }
            // The same origin written otherwise (case): answered with the origin as the browser sent it.
            let recased = try await preflight(http, origin: "HTTP://127.0.0.1:8080")
            #expect(recased.status == 204 && recased.headers[.accessControlAllowOrigin] == "HTTP://127.0.0.1:8080")
            // A denial is still a denial, with the CORS headers so that the page can read why.
            let denied = try await http.form("/pusher/auth", Self.form, headers: ["Origin": "http://127.0.0.1:8080", "Authorization": "Bearer wrong"])
            #expect(denied.status == 403 && denied.headers[.accessControlAllowOrigin] == "http://127.0.0.1:8080")
        }
    }

    @Test func anotherOriginGetsNoCORSHeaderAndItsPreflightA403() async throws {
        try await TestHub.with(TestHub.configuration { $0.allowedOrigins = ["http://127.0.0.1:8080"] }) { hub in
            let http = TestHTTP(hub)
            for origin in ["http://127.0.0.1:9090", "https://127.0.0.1:8080", "null"] {
                let answer = try await preflight(http, origin: origin)
                #expect(answer.status == 403, "\(origin)")
                #expect(answer.headers[.accessControlAllowOrigin] == nil)
                #expect(answer.headers[.accessControlAllowMethods] == nil)
                // The POST itself (a browser would not read it): no CORS header, Vary for caches.
                let posted = try await post(http, origin: origin)
                #expect(posted.headers[.accessControlAllowOrigin] == nil, "\(origin)")
                #expect(posted.headers[.vary] == "Origin")
            }
        }
    }

    @Test func withoutOriginNothingChangesAndWithoutAListEveryOriginIsAnswered() async throws {
        try await TestHub.with { hub in
            let http = TestHTTP(hub)
            let server = try await post(http, origin: nil)
            #expect(server.status == 200)
            #expect(server.headers[.accessControlAllowOrigin] == nil)
            #expect(try await http.raw("OPTIONS", "/pusher/auth").status == 204)  // not a preflight: no Origin

            let any = try await preflight(http, origin: "https://anything.example", requesting: nil)
            #expect(any.status == 204)
            #expect(any.headers[.accessControlAllowOrigin] == "https://anything.example")
            #expect(any.headers[.accessControlAllowHeaders] == CORSSettings.defaultAllowedHeaders.joined(separator: ", "))
            // Requested header names that are not header names: the fixed list instead.
            let odd = try await preflight(http, origin: "https://anything.example", requesting: "x y, (z)")
            #expect(odd.headers[.accessControlAllowHeaders] == CORSSettings.defaultAllowedHeaders.joined(separator: ", "))
            #expect(try await post(http, origin: "https://anything.example").headers[.accessControlAllowOrigin] == "https://anything.example")
        }
    }

    @Test func anAppMountingPusherAuthEndpointsChoosesOriginsAndCredentials() async throws {
        let users = DevelopmentUserDirectory(users: TestHub.users)
        func serve(_ cors: CORSSettings?) async throws -> RunningServer {
            let endpoints = PusherAuthEndpoints(signer: TestHub.signer, identifier: users.identifier, cors: cors) { users.decide($0) }
            let router = Router()
            endpoints.register(on: router)
            return try await RunningServer.start(router)
        }
        let origin = try #require(WebOrigin("https://app.example.com"))
        let listed = try await serve(CORSSettings(origins: OriginAllowlist([origin]), allowsCredentials: true, maxAge: 60))
        try await withCleanup {
            let http = TestHTTP(baseURL: listed.baseURL)
            let answer = try await preflight(http, origin: "https://app.example.com")
            #expect(answer.status == 204)
            #expect(answer.headers[.accessControlAllowCredentials] == "true")
            #expect(answer.headers[.accessControlMaxAge] == "60")
            // With credentials, the cookie the development endpoints accept works cross origin.
            let withCookie = try await http.form("/pusher/auth", Self.form, headers: ["Origin": "https://app.example.com", "Cookie": "clearance_token=bob-token"])
            #expect(withCookie.status == 200)
            #expect(withCookie.headers[.accessControlAllowCredentials] == "true")
            #expect(try await preflight(http, origin: "https://other.example.com").status == 403)
        } cleanup: { await listed.stop() }

        // Credentials are never sent back for every origin: any website could use the cookie.
        let open = try await serve(CORSSettings(origins: .any, allowsCredentials: true))
        try await withCleanup {
            let answer = try await preflight(TestHTTP(baseURL: open.baseURL), origin: "https://other.example.com")
            #expect(answer.status == 204 && answer.headers[.accessControlAllowCredentials] == nil)
        } cleanup: { await open.stop() }

        // Without cors: no CORS at all, as before (OPTIONS is not routed).
        let plain = try await serve(nil)
        try await withCleanup {
            let http = TestHTTP(baseURL: plain.baseURL)
            let preflighted = try await preflight(http, origin: "https://app.example.com")
            let posted = try await post(http, origin: "https://app.example.com")
            #expect(preflighted.headers[.accessControlAllowOrigin] == nil && posted.headers[.accessControlAllowOrigin] == nil)
        } cleanup: { await plain.stop() }
    }
}
