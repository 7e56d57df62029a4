import Clearance
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceTesting
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Testing

enum TransportKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case asyncHTTPClient, urlSession
    var transport: any HTTPTransport {
        switch self {
        case .asyncHTTPClient: AsyncHTTPClientHTTPTransport.shared
        case .urlSession: URLSessionHTTPTransport()
        }
    }
    var testDescription: String { rawValue }
}

/// `server`'s `/redirect`, answering with a redirect to `target` (with `status`, 302 by default).
func redirect(on server: RunningServer, to target: String, status: Int? = nil) -> URL {
    var components = URLComponents(url: server.baseURL.appending(path: "/redirect"), resolvingAgainstBaseURL: false)!
    components.queryItems = [URLQueryItem(name: "to", value: target)] + (status.map { [URLQueryItem(name: "status", value: "\($0)")] } ?? [])
    return components.url!
}

func client(_ credential: Credential, transport: any HTTPTransport, hook: AuthorizedClient.RequestHook? = nil) throws -> AuthorizedClient {
    let authorizer = try RequestAuthorizer(policy: .always("s"), sources: ["s": StaticCredentialSource(credential, name: "s")])
    return AuthorizedClient(authorizer: authorizer, transport: transport, willSend: hook)
}

/// Each test has two minutes (the 10,000-request fan-in takes about 30 s under AddressSanitizer):
/// a whole run under AddressSanitizer once stopped in this suite, after `cancellationPropagates`
/// began, with every task suspended for 16 minutes and no test named; a limit makes such a hang
/// a named failure.
@Suite("AuthorizedClient over real transports", .serialized, .timeLimit(.minutes(2)))
struct AuthorizedClientTests {
    @Test(arguments: TransportKind.allCases)
    func crossOriginRedirectStripsCredentials(kind: TransportKind) async throws {
        try await withServers { a, serverA, b, serverB in
            let target = serverB.baseURL.appending(path: "/echo").absoluteString
            let c = try client(.bearer("cross-origin-secret"), transport: kind.transport)
            for status in [301, 302, 303, 307, 308] {
                // The app also set a cookie itself: it must not cross origins either.
                let (response, body) = try await c.send(HTTPRequest(method: .get, url: redirect(on: serverA, to: target, status: status), headerFields: [.cookie: "session=app-cookie"]))
                #expect(response.status == .ok)
                #expect(TestAPI.field("authorization", body) == "absent", "status \(status)")
                #expect(TestAPI.field("cookie", body) == "absent", "status \(status)")
            }
            #expect(a.authorized("redirect") == 5)  // the first hop did carry it
            #expect(b.count("echo") == 5)
            #expect(b.authorized("echo") == 0)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func localhostAndLoopbackAddressAreDifferentOrigins(kind: TransportKind) async throws {
        try await withServers { _, serverA, _, _ in
            // Same port, other host name: another origin.
            let url = redirect(on: serverA, to: "http://localhost:\(serverA.port)/echo")
            let (_, body) = try await client(.bearer("secret-token"), transport: kind.transport).send(.get, url)
            #expect(TestAPI.field("authorization", body) == "absent")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func sameOriginRedirectKeepsTheCredential(kind: TransportKind) async throws {
        try await withServers { a, serverA, _, _ in
            let (_, body) = try await client(.bearer("same-origin-token"), transport: kind.transport).send(.get, redirect(on: serverA, to: "/echo"))
            #expect(TestAPI.field("authorization", body) == "present")
            #expect(a.authorized("echo") == 1)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func redirectMethodRules(kind: TransportKind) async throws {
        try await withServers { _, serverA, _, _ in
            let c = try client(.bearer("t0ken-value"), transport: kind.transport)
            for (status, method, bodyLength) in [(307, "POST", "5"), (308, "POST", "5"), (303, "GET", "0"), (302, "GET", "0")] {
                let (response, body) = try await c.send(.post, redirect(on: serverA, to: "/echo", status: status), body: Data("hello".utf8))
                #expect(TestAPI.field("method", body) == method, "\(status)")
                if method == "POST" { #expect(response.headerFields[HTTPField.Name("X-Body-Length")!] == bodyLength) }
            }
        }
    }

    @Test func redirectLoopsEnd() async throws {
        try await withServers { _, serverA, _, _ in
            let error = await #expect(throws: AuthorizationError.self) {
                try await client(.bearer("t0ken-value"), transport: AsyncHTTPClientHTTPTransport.shared).send(.get, serverA.baseURL.appending(path: "/loop"))
            }
            #expect(error?.code == .tooManyRedirects)
            #expect(error?.response?.status == 302)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func alwaysUnauthorizedMeansExactlyTwoRequests(kind: TransportKind) async throws {
        try await withServers { a, serverA, _, _ in
            let fetches = Counter()
            let source = CachingCredentialSource(ClosureCredentialSource { .bearer("never-good-\(fetches.increment())") }, initial: .bearer("stale"))
            let c = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("s"), sources: ["s": source]), transport: kind.transport)
            let error = await #expect(throws: AuthorizationError.self) { try await c.send(.get, serverA.baseURL.appending(path: "/protected")) }
            #expect(error?.code == .unauthorized)
            #expect(a.count("protected") == 2)
            #expect(fetches.value == 1)
        }
    }

    @Test func nilTokenSendsNothing() async throws {
        try await withServers { a, serverA, _, _ in
            let source = ClosureCredentialSource.bearerToken { nil }
            let c = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("s"), sources: ["s": source]))
            let error = await #expect(throws: AuthorizationError.self) { try await c.send(.get, serverA.baseURL.appending(path: "/protected")) }
            #expect(error?.code == .missingCredential)
            #expect(a.count("protected") == 0)
        }
    }

    @Test func tenThousandConcurrentRequestsOnAnExpiredCredentialRefreshOnce() async throws {
        // 10,000 as the issue asks; under a sanitizer (which looks for races and memory errors
        // here, not for the count) 3,000: 10,000 passed the 2-minute limit under ThreadSanitizer
        // on a loaded machine.
        let fanIn = Int(ProcessInfo.processInfo.environment["FANIN"] ?? "") ?? (TestTiming.sanitized ? 3_000 : 10_000)
        let started = ContinuousClock.now
        defer { print("fan-in of \(fanIn) took \(ContinuousClock.now - started)") }
        try await withServers { a, serverA, _, _ in
            let fetches = Counter()
            let released = AsyncStream<Void>.makeStream()
            let source = CachingCredentialSource(ClosureCredentialSource {
                fetches.increment()
                for await _ in released.stream {}  // answers once every request waits for it (below)
                return .bearer("good-token")
            }, initial: .bearer("expired-token"))  // expiry unknown to the client: every request meets a 401 first
            let httpClient = AsyncHTTPClientHTTPTransport.makeClient(connectionsPerHost: 16)
            let c = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("s"), sources: ["s": source]), transport: AsyncHTTPClientHTTPTransport(client: httpClient))
            let url = serverA.baseURL.appending(path: "/protected")
            // The client is shut down however the run ends (a time limit, a wait that gave up):
            // one dropped without it ends the whole test process (AsyncHTTPClient's deinit traps).
            let succeeded = try await withCleanup {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<fanIn {
                        group.addTask { try await c.send(.get, url).0.status == .ok }
                    }
                    // Each request, refused or finding the refused token dropped, waits for the one fetch.
                    try await eventually("all \(fanIn) requests wait for the one fetch", timeout: .seconds(120)) {
                        source.waitingCallers == fanIn
                    }
                    released.continuation.finish()
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
            } cleanup: {
                released.continuation.finish()
                try? await httpClient.shutdown()
            }
            #expect(succeeded == fanIn)
            #expect(fetches.value == 1)
            #expect(a.count("protected") <= 2 * fanIn)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellationPropagates(kind: TransportKind) async throws {
        try await withServers { a, serverA, _, _ in
            let c = try client(.bearer("t0ken-value"), transport: kind.transport)
            let task = Task { try await c.send(.get, serverA.baseURL.appending(path: "/slow")) }
            try await eventually("the request reached /slow") { a.count("slow") > 0 }
            let start = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(ContinuousClock.now - start < TestTiming.slowed(.seconds(4)))  // the server answers /slow only when the test ends
            guard case .failure(let error) = result else {
                Issue.record("the request finished despite cancellation")
                return
            }
            #expect((error as? AuthorizationError)?.code == .cancelled)
        }
    }

    @Test func hookAdjustsEveryOutgoingRequest() async throws {
        try await withServers { _, serverA, _, _ in
            let contexts = Locked<[String]>([])
            let c = try client(.bearer("t0ken-value"), transport: AsyncHTTPClientHTTPTransport.shared) { request, context in
                request.headerFields[HTTPField.Name("X-Trace")!] = "demo"
                contexts.withLock { $0.append("\(context.redirectCount):\(context.carriesCredential)") }
            }
            let (_, body) = try await c.send(.get, redirect(on: serverA, to: "/echo"))
            #expect(TestAPI.field("headers", body)?.lowercased().contains("x-trace") == true)
            #expect(contexts.withLock { $0 } == ["0:true", "1:true"])
        }
    }

    @Test func plainHTTPToARemoteHostIsRefusedOnBothTransports() async throws {
        for kind in TransportKind.allCases {
            let error = await #expect(throws: AuthorizationError.self) {
                try await client(.apiKey("k3y-value"), transport: kind.transport).send(.get, URL(string: "http://api.example.invalid/x")!)
            }
            #expect(error?.code == .misconfigured)
        }
    }
}
