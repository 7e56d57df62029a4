import Clearance
import ClearanceTesting
import Foundation
import HTTPTypes
import Testing
@testable import ClearanceHTTP

@Suite("Transport limits", .serialized)
struct TransportLimitTests {
    /// Both transports cap a response body with the same option and the same error.
    @Test(arguments: ["asyncHTTPClient", "urlSession"])
    func responseBodiesAreCapped(transportName: String) async throws {
        let httpClient = AsyncHTTPClientHTTPTransport.makeClient()
        let transport: any HTTPTransport = transportName == "urlSession"
            ? URLSessionHTTPTransport(maximumBodySize: 4_000)
            : AsyncHTTPClientHTTPTransport(client: httpClient, maximumBodySize: 4_000)
        defer { Task { try? await httpClient.shutdown() } }
        try await withServers { _, server, _, _ in
            let fits = HTTPRequest(method: .get, url: server.baseURL.appending(path: "/big").appending(queryItems: [URLQueryItem(name: "size", value: "4000")]))
            let (response, body) = try await transport.send(fits, body: nil)
            #expect(response.status == .ok && body.count == 4_000)
            let tooLarge = HTTPRequest(method: .get, url: server.baseURL.appending(path: "/big").appending(queryItems: [URLQueryItem(name: "size", value: "200000")]))
            await #expect(throws: TransportError.bodyTooLarge(limit: 4_000)) { _ = try await transport.send(tooLarge, body: nil) }
        }
    }

    /// One queue per origin: past 256 origins the idle queues are dropped, a busy one is kept.
    @Test func idleOriginQueuesAreDroppedAndBusyOnesKept() async throws {
        let gates = OriginGates(limit: 1)
        let busyURL = URL(string: "https://busy.example/token")!
        let busy = gates.gate(for: busyURL)
        try await busy.enter()
        for index in 0..<300 { _ = gates.gate(for: URL(string: "https://host-\(index).example/")!) }
        #expect(gates.gate(for: busyURL) === busy)
        #expect(gates.gate(for: URL(string: "HTTPS://BUSY.example/other")!) === busy, "one queue per origin, whatever the path or case")
        #expect(gates.count < 300)
        busy.leave()
    }

    /// A task cancelled before it reaches the gate never sends, and takes no slot.
    @Test func aCancelledTaskNeverStartsARequestNorTakesASlot() async throws {
        let base = CountingTransport()
        let limited = ConcurrencyLimitedTransport(base, limit: 1)
        let request = HTTPRequest(method: .get, url: URL(string: "https://example.invalid/")!)
        for _ in 0..<50 {
            let cancelled = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await limited.send(request, body: nil)
            }
            await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        }
        #expect(base.sent.value == 0)
        // The one slot is still free.
        let (response, _) = try await limited.send(request, body: nil)
        #expect(response.status == .ok)
        #expect(base.sent.value == 1)
    }
}

/// Answers 200 at once and counts what it was asked to send.
private struct CountingTransport: HTTPTransport {
    let sent = Counter()
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        sent.increment()
        return (HTTPResponse(status: .ok), Data())
    }
    func stream<Result: Sendable>(_ request: HTTPRequest, body: Data?, receive: (HTTPResponse, HTTPResponseBody) async throws -> Result) async throws -> Result {
        sent.increment()
        return try await receive(HTTPResponse(status: .ok), .complete(Data()))
    }
}
