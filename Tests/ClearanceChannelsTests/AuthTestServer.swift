import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import ClearanceWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// One request the test auth endpoint received.
struct ReceivedAuthRequest: Sendable {
    let path: String
    let authorization: String?
    let testHeader: String?
    let contentType: String?
    let body: String

    /// The form fields, percent-decoded.
    var form: [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}

/// Keeps what the test auth endpoint received.
actor AuthRequestLog {
    private(set) var requests: [ReceivedAuthRequest] = []
    func add(_ request: ReceivedAuthRequest) { requests.append(request) }
    var count: Int { requests.count }
    func count(path: String) -> Int { requests.filter { $0.path == path }.count }
}

/// A loopback auth endpoint with one route per way an auth server can answer.
struct AuthTestServer: Sendable {
    let server: RunningServer
    let log: AuthRequestLog
    /// Holds every answer of `/slow` until the test ends (``with(_:)`` opens it).
    let slowAnswers: Gate

    func url(_ path: String) -> URL { server.baseURL.appendingPathComponent(path) }

    static func start() async throws -> AuthTestServer {
        let log = AuthRequestLog()
        let slowAnswers = Gate()
        let router = Router()

        @Sendable func record(_ request: Request) async throws -> ReceivedAuthRequest {
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let received = ReceivedAuthRequest(
                path: request.uri.path,
                authorization: request.headers[.authorization],
                testHeader: request.headers[HTTPField.Name("X-Test")!],
                contentType: request.headers[.contentType],
                body: String(buffer: buffer)
            )
            await log.add(received)
            return received
        }
        @Sendable func respond(_ status: HTTPResponse.Status, _ text: String, headers: HTTPFields = [:]) -> Response {
            var fields = headers
            fields[.contentType] = "application/json"
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }

        router.post("/ok") { request, _ in
            let received = try await record(request)
            return respond(.ok, #"{"auth":"key:sig-for-\#(received.form["channel_name"] ?? "?")"}"#)
        }
        router.post("/created") { request, _ in
            _ = try await record(request)
            return respond(.created, #"{"auth":"key:sig"}"#)
        }
        router.post("/status/{code}") { request, context in
            _ = try await record(request)
            let code = Int(context.parameters.get("code") ?? "500") ?? 500
            return respond(.init(code: code), #"{"error":"refused","code":\#(code)}"#)
        }
        router.post("/notjson") { request, _ in
            _ = try await record(request)
            return respond(.ok, "<html>oops</html>")
        }
        router.post("/empty") { request, _ in
            _ = try await record(request)
            return respond(.ok, "")
        }
        router.post("/array") { request, _ in
            _ = try await record(request)
            return respond(.ok, "[1,2]")
        }
        router.post("/slow") { request, _ in
            _ = try await record(request)
            await slowAnswers.wait()
            return respond(.ok, #"{"auth":"key:late"}"#)
        }
        router.post("/bearer") { request, _ in
            let received = try await record(request)
            guard received.authorization == "Bearer fresh-token" else {
                return respond(.unauthorized, #"{"error":"invalid_token"}"#, headers: [.wwwAuthenticate: #"Bearer error="invalid_token""#])
            }
            return respond(.ok, #"{"auth":"key:with-fresh-token"}"#)
        }
        router.post("/batch") { request, _ in
            let received = try await record(request)
            let form = received.form
            guard form["channel_name[0]"] != nil else {
                let name = form["channel_name"] ?? "?"
                return respond(.ok, #"{"auth":"key:single-\#(name)"}"#)
            }
            var entries: [String] = []
            var index = 0
            while let name = form["channel_name[\(index)]"] {
                index += 1
                if name.contains("denied") {
                    entries.append(#""\#(name)":{"status":403,"data":{"error":"forbidden"}}"#)
                } else if name.contains("flaky") {
                    continue
                } else if name.contains("broken") {
                    entries.append(#""\#(name)":{"status":500}"#)
                } else {
                    entries.append(#""\#(name)":{"status":200,"data":{"auth":"key:batch-\#(name)"}}"#)
                }
            }
            return respond(.ok, "{" + entries.joined(separator: ",") + "}")
        }
        router.post("/nobatch") { request, _ in
            let received = try await record(request)
            guard received.form["channel_name[0]"] == nil else { return respond(.badRequest, #"{"error":"no batching"}"#) }
            return respond(.ok, #"{"auth":"key:single-\#(received.form["channel_name"] ?? "?")"}"#)
        }
        router.post("/redirect") { request, _ in
            _ = try await record(request)
            let status = request.uri.queryParameters.get("status").flatMap(Int.init) ?? 307
            return Response(status: .init(code: status), headers: [.location: request.uri.queryParameters.get("to") ?? "/ok"])
        }
        router.post("/user-auth") { request, _ in
            _ = try await record(request)
            return respond(.ok, #"{"auth":"key:user","user_data":"{\"id\":\"u1\"}"}"#)
        }

        let server = try await RunningServer.start(router)
        return AuthTestServer(server: server, log: log, slowAnswers: slowAnswers)
    }

    func stop() async { await server.stop() }

    /// Runs `body` with a started server and stops it afterwards.
    @discardableResult
    static func with<T>(_ body: (AuthTestServer) async throws -> T) async throws -> T {
        let server = try await start()
        return try await withCleanup { try await body(server) } cleanup: {
            server.slowAnswers.open()
            await server.stop()
        }
    }
}
