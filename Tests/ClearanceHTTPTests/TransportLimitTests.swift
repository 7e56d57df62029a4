import Clearance
import ClearanceTesting
import ClearanceTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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

    /// The URLSession transport neither reads nor fills a response cache, whatever the
    /// configuration it is given (`.ephemeral` and `.default` each carry one): nothing an
    /// authorized call brings back is kept in memory, and no task looks in a cache before it
    /// starts. (FoundationNetworking looks on a queue of its own before the task's protocol
    /// exists; a cancel that lands then can stop the process, "Trying to access a behaviour for
    /// a task that in not in the registry".) The caller's configuration object is left as it was.
    @Test(arguments: ["ephemeral", "default"])
    func theURLSessionTransportUsesNoCache(configurationName: String) async throws {
        let configuration: URLSessionConfiguration = configurationName == "default" ? .default : .ephemeral
        let cache = CountingCache()
        configuration.urlCache = cache
        let transport = URLSessionHTTPTransport(configuration: configuration)
        try await withServers { api, server, _, _ in
            let request = HTTPRequest(method: .get, url: server.baseURL.appending(path: "/cacheable"))
            let (first, firstBody) = try await transport.send(request, body: nil)
            let (second, secondBody) = try await transport.send(request, body: nil)
            #expect(first.status == .ok && second.status == .ok)
            #expect(TestAPI.field("answer", firstBody) == "1")
            #expect(TestAPI.field("answer", secondBody) == "2", "the second call reached the server")
            #expect(api.count("cacheable") == 2)
            let transportLookups = cache.lookups.withLock { $0 }
            // The positive control: a plain URLSession on the same configuration looks in the cache.
            let plain = URLSession(configuration: configuration)
            defer { plain.finishTasksAndInvalidate() }
            _ = try await plain.data(from: server.baseURL.appending(path: "/cacheable"))
            #expect(cache.lookups.withLock { $0 } > transportLookups, "a session with this configuration looks in its cache")
            #expect(transportLookups == 0, "the transport never looked in the cache")
        }
        #expect(configuration.urlCache === cache, "the caller's configuration keeps its cache")
        #expect(configuration.httpShouldSetCookies, "and its cookie setting")
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

    /// Waiters cancelled while the one slot stays held: their ids do not pile up, the gate is idle
    /// again once the slot is given back, and the next request takes the slot at once.
    @Test func cancelledWaitersBehindAHeldSlotCostNoMemoryThatStays() async throws {
        let gate = AsyncGate(limit: 1)
        try await gate.enter()
        for round in 0..<5 {
            let waiters = (0..<1_000).map { _ in Task { try await gate.enter() } }
            try await eventually("round \(round): every waiter queued") { gate.queuedIDs >= 1_000 }
            for waiter in waiters { waiter.cancel() }
            for waiter in waiters { await #expect(throws: CancellationError.self) { try await waiter.value } }
        }
        #expect(gate.queuedIDs <= 1_024 + 1_000, "5,000 cancelled ids, compacted as they came")
        #expect(!gate.isIdle, "the slot is still held")
        gate.leave()
        #expect(gate.isIdle)
        #expect(gate.queuedIDs == 0)
        try await gate.enter()  // at once: no cancelled id stands in its way
        gate.leave()
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

/// A response cache that counts how often it is asked for a response.
final class CountingCache: URLCache, @unchecked Sendable {
    let lookups = Locked(0)
    init() { super.init(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil) }

    override func cachedResponse(for request: URLRequest) -> CachedURLResponse? {
        lookups.withLock { $0 += 1 }
        return super.cachedResponse(for: request)
    }

    override func getCachedResponse(for dataTask: URLSessionDataTask, completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void) {
        lookups.withLock { $0 += 1 }
        super.getCachedResponse(for: dataTask, completionHandler: completionHandler)
    }
}
