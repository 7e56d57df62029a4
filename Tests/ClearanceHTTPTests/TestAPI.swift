import Clearance
import ClearanceDevelopment
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
@testable import ClearanceServer

/// A loopback API for the HTTP tests: counts what arrives, never echoes a credential back.
final class TestAPI: Sendable {
    private let seen = Locked<[String: (total: Int, authorized: Int)]>([:])
    private let accepted = Locked<Set<String>>(["Bearer good-token"])
    /// Holds every answer of `/slow` until the test ends (``withServers`` opens it).
    let slowAnswers = Gate()

    func count(_ route: String) -> Int { seen.withLock { $0[route]?.total ?? 0 } }
    func authorized(_ route: String) -> Int { seen.withLock { $0[route]?.authorized ?? 0 } }
    func accept(_ header: String) { accepted.withLock { _ = $0.insert(header) } }

    private func record(_ route: String, _ request: Request) {
        let hasAuth = request.headers[.authorization] != nil
        seen.withLock { $0[route, default: (0, 0)].total += 1; if hasAuth { $0[route]!.authorized += 1 } }
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.on("/protected", method: .get) { request, _ in
            self.record("protected", request)
            let ok = request.headers[.authorization].map { header in self.accepted.withLock { $0.contains(header) } } ?? false
            return ok ? Self.json(.ok, ["ok": "yes"]) : Self.json(.unauthorized, ["error": "invalid_token"], challenge: #"Bearer error="invalid_token""#)
        }
        router.post("/protected") { request, _ in
            self.record("protected-post", request)
            let body = try await request.body.collect(upTo: 1 << 20)
            let ok = request.headers[.authorization].map { header in self.accepted.withLock { $0.contains(header) } } ?? false
            return ok ? Self.json(.ok, ["body": String(buffer: body)]) : Self.json(.unauthorized, [:], challenge: #"Bearer error="invalid_token""#)
        }
        router.on("/echo", method: .get) { request, _ in self.echo(request) }
        router.on("/echo", method: .post) { request, _ in
            var response = self.echo(request)
            let body = try await request.body.collect(upTo: 1 << 20)
            response.headers[HTTPField.Name("X-Body-Length")!] = "\(body.readableBytes)"
            return response
        }
        for method in [HTTPRequest.Method.get, .post] {
            router.on("/redirect", method: method) { request, _ in
                self.record("redirect", request)
                let status = request.uri.queryParameters.get("status").flatMap(Int.init) ?? 302
                return Response(status: .init(code: status), headers: [.location: request.uri.queryParameters.get("to") ?? "/echo"])
            }
        }
        router.get("/big") { request, _ in
            // `size` bytes, streamed in 1 KiB chunks without a Content-Length.
            let size = request.uri.queryParameters.get("size").flatMap(Int.init) ?? 0
            return Response(status: .ok, body: ResponseBody { writer in
                var left = size
                while left > 0 {
                    let chunk = min(left, 1024)
                    try await writer.write(ByteBuffer(repeating: UInt8(ascii: "x"), count: chunk))
                    left -= chunk
                }
                try await writer.finish(nil)
            })
        }
        router.get("/cacheable") { request, _ in
            // An answer any HTTP cache may keep for an hour.
            self.record("cacheable", request)
            var response = Self.json(.ok, ["answer": "\(self.count("cacheable"))"])
            response.headers[.cacheControl] = "public, max-age=3600"
            return response
        }
        router.get("/loop") { request, _ in
            self.record("loop", request)
            return Response(status: .found, headers: [.location: "/loop"])
        }
        router.get("/slow") { request, _ in
            self.record("slow", request)
            await self.slowAnswers.wait()
            return Self.json(.ok, [:])
        }
        return router
    }

    private func echo(_ request: Request) -> Response {
        record("echo", request)
        let names = request.headers.map(\.name.canonicalName).sorted().joined(separator: ",")
        return Self.json(.ok, [
            "authorization": request.headers[.authorization] == nil ? "absent" : "present",
            "cookie": request.headers[.cookie] == nil ? "absent" : "present",
            "method": request.method.rawValue,
            "headers": names,
        ])
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: String], challenge: String? = nil) -> Response {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        var headers: HTTPFields = [.contentType: "application/json"]
        if let challenge { headers[.wwwAuthenticate] = challenge }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func field(_ name: String, _ body: Data) -> String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: String])?[name]
    }
}

/// Starts two TestAPI servers (two origins) for a test and stops them after.
func withServers<T>(_ body: (TestAPI, RunningServer, TestAPI, RunningServer) async throws -> T) async throws -> T {
    let a = TestAPI(), b = TestAPI()
    let serverA = try await RunningServer.start(a.router(), logger: .init(label: "a", factory: { _ in SwiftLogNoOpLogHandler() }))
    return try await withCleanup {
        let serverB = try await RunningServer.start(b.router(), logger: .init(label: "b", factory: { _ in SwiftLogNoOpLogHandler() }))
        return try await withCleanup { try await body(a, serverA, b, serverB) } cleanup: {
            b.slowAnswers.open()
            await serverB.stop()
        }
    } cleanup: {
        a.slowAnswers.open()
        await serverA.stop()
    }
}
