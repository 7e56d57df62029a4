import Clearance
import Foundation
import HTTPTypes
import ClearanceTesting
import Testing
@testable import Clearance

/// A fake wire: records what was sent and answers with a scripted status.
final class FakeWire: Sendable {
    let sent = Locked<[HTTPRequest]>([])
    let answer: @Sendable (HTTPRequest) -> HTTPResponse
    init(_ answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse) { self.answer = answer }
    var count: Int { sent.withLock { $0.count } }
    func transmit(_ request: HTTPRequest) async throws -> (HTTPResponse, Data) {
        sent.withLock { $0.append(request) }
        return (answer(request), Data())
    }
}

@Suite("RequestAuthorizer")
struct RequestAuthorizerTests {
    let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/private")

    @Test func misconfigurationIsAnErrorWithALogLine() {
        let logs = LogCapture()
        let error = #expect(throws: AuthorizationError.self) {
            try RequestAuthorizer(policy: .always("nobody"), sources: [:], logger: logs.logger())
        }
        #expect(error?.code == .misconfigured)
        #expect(error?.message.contains("'nobody'") == true)
        #expect(logs.all.contains { $0.hasPrefix("error") && $0.contains("nobody") })
    }

    @Test func missingCredentialSendsNothing() async throws {
        let wire = FakeWire { _ in HTTPResponse(status: .ok) }
        let authorizer = try RequestAuthorizer(policy: .always("customer"), sources: ["customer": ClosureCredentialSource(name: "customer") { nil }])
        let error = await #expect(throws: AuthorizationError.self) { try await authorizer.send(request, using: wire.transmit) }
        #expect(error?.code == .missingCredential)
        #expect(wire.count == 0)
    }

    @Test func alwaysUnauthorizedMeansTwoRequestsAndOneRefresh() async throws {
        let wire = FakeWire { _ in HTTPResponse(status: .unauthorized, headerFields: [.wwwAuthenticate: #"Bearer error="invalid_token""#]) }
        let fetcher = CountingFetcher()
        let source = CachingCredentialSource(fetcher.source(), initial: .bearer("stale"))
        let authorizer = try RequestAuthorizer(policy: .always("s"), sources: ["s": source])
        let error = await #expect(throws: AuthorizationError.self) { try await authorizer.send(request, using: wire.transmit) }
        #expect(error?.code == .unauthorized)
        if case .unauthorized(let response)? = error {
            #expect(response.status == 401 && response.challenges.first?.error == "invalid_token")
        }
        #expect(wire.count == 2)
        #expect(fetcher.fetches == 1)
        #expect(wire.sent.withLock { $0.map { $0.headerFields[.authorization] } } == ["Bearer stale", "Bearer token-1"])
    }

    @Test func insufficientScopeIsNotRefreshed() async throws {
        let wire = FakeWire { _ in HTTPResponse(status: .unauthorized, headerFields: [.wwwAuthenticate: #"Bearer error="insufficient_scope""#]) }
        let fetcher = CountingFetcher()
        let authorizer = try RequestAuthorizer(policy: .always("s"), sources: ["s": CachingCredentialSource(fetcher.source(), initial: .bearer("x-token"))])
        await #expect(throws: AuthorizationError.self) { try await authorizer.send(request, using: wire.transmit) }
        #expect(wire.count == 1 && fetcher.fetches == 0)
    }

    @Test func staticSourcesAreNotRetried() async throws {
        let wire = FakeWire { _ in HTTPResponse(status: .unauthorized) }
        let authorizer = try RequestAuthorizer(policy: .always("s"), sources: ["s": StaticCredentialSource(.apiKey("key-123"))])
        await #expect(throws: AuthorizationError.self) { try await authorizer.send(request, using: wire.transmit) }
        #expect(wire.count == 1)
    }

    @Test func forbiddenIsItsOwnError() async throws {
        let wire = FakeWire { _ in HTTPResponse(status: .forbidden) }
        let authorizer = try RequestAuthorizer(policy: .always("s"), sources: ["s": StaticCredentialSource(.apiKey("key-123"))])
        let error = await #expect(throws: AuthorizationError.self) { try await authorizer.send(request, using: wire.transmit) }
        #expect(error?.code == .forbidden)
    }

    @Test(arguments: ["http://api.example.com/x", "http://10.0.0.2/x", "ftp://api.example.com/x"])
    func refusesInsecureTransport(url: String) async throws {
        let wire = FakeWire { _ in HTTPResponse(status: .ok) }
        let authorizer = try RequestAuthorizer(policy: .always("s"), sources: ["s": StaticCredentialSource(.apiKey("key-123"))])
        let error = await #expect(throws: AuthorizationError.self) {
            try await authorizer.send(HTTPRequest(method: .get, url: URL(string: url)!), using: wire.transmit)
        }
        #expect(error?.code == .misconfigured)
        #expect(wire.count == 0)
    }

    @Test(arguments: ["http://127.0.0.1:8080/x", "http://localhost/x", "http://[::1]:9/x", "http://127.1.2.3/x", "https://api.example.com/x"])
    func allowsLoopbackAndTLS(url: String) async throws {
        let wire = FakeWire { _ in HTTPResponse(status: .ok) }
        let authorizer = try RequestAuthorizer(policy: .always("s"), sources: ["s": StaticCredentialSource(.apiKey("key-123"))])
        let (response, _) = try await authorizer.send(HTTPRequest(method: .get, url: URL(string: url)!), using: wire.transmit)
        #expect(response.status == .ok && wire.count == 1)
    }

    @Test func insecureHostsCanBeAllowedExplicitly() async throws {
        let wire = FakeWire { _ in HTTPResponse(status: .ok) }
        let authorizer = try RequestAuthorizer(
            policy: .always("s"), sources: ["s": StaticCredentialSource(.apiKey("key-123"))],
            transportSecurity: TransportSecurity(insecureHostsAllowed: ["intranet.local"]))
        _ = try await authorizer.send(HTTPRequest(method: .get, url: URL(string: "http://INTRANET.local/x")!), using: wire.transmit)
        #expect(wire.count == 1)
    }

    @Test func cancellationBeforeSendingSendsNothing() async throws {
        let wire = FakeWire { _ in HTTPResponse(status: .ok) }
        let authorizer = try RequestAuthorizer(policy: .always("s"), sources: ["s": StaticCredentialSource(.apiKey("key-123"))])
        // Nothing is ever sent on this stream: reading it ends only when the task is cancelled,
        // so `send` below runs in a task already cancelled.
        let untilCancelled = AsyncStream<Void>.makeStream()
        defer { untilCancelled.continuation.finish() }
        let task = Task {
            for await _ in untilCancelled.stream {}
            return try await authorizer.send(request, using: wire.transmit)
        }
        task.cancel()
        await #expect(throws: (any Error).self) { try await task.value }
        #expect(wire.count == 0)
    }

    @Test func noSecretInLogsAtTraceLevel() async throws {
        let logs = LogCapture()
        let secret = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqYW5lIn0.TOPSECRETSIG"
        let wire = FakeWire { request in
            request.headerFields[.authorization] == "Bearer \(secret)-2"
                ? HTTPResponse(status: .ok)
                : HTTPResponse(status: .unauthorized, headerFields: [.wwwAuthenticate: #"Bearer error="invalid_token""#])
        }
        let events = AuthorizationEvents(notificationCenter: nil)
        let source = CachingCredentialSource(
            ClosureCredentialSource { .bearer("\(secret)-2") }, name: "jwt", initial: .bearer("\(secret)-1"),
            events: events, logger: logs.logger("cache"))
        let authorizer = try RequestAuthorizer(policy: .always("jwt"), sources: ["jwt": source], logger: logs.logger("authorizer"))
        var withQuery = request
        withQuery.path = "/private?access_token=QUERYSECRET"
        _ = try await authorizer.send(withQuery, using: wire.transmit)
        #expect(logs.all.count >= 3)
        #expect(!logs.text.contains("TOPSECRET"))
        #expect(!logs.text.contains("QUERYSECRET"))
        #expect(!logs.text.contains("eyJhbGci"))
    }

    @Test func errorMessagesNeverShowSecrets() {
        let errors: [AuthorizationError] = [
            .badResponse(HTTPErrorResponse(status: 400, body: Data(#"{"error":"invalid_grant","refresh_token":"rt-LEAK"}"#.utf8))),
            .unauthorized(HTTPErrorResponse(status: 401, headerFields: [.wwwAuthenticate: #"Bearer error="invalid_token", error_description="token tk-LEAK-tk""#],
                                            body: Data(#"{"access_token":"at-LEAK"}"#.utf8))),
            .unknown(underlying: NSError(domain: "x", code: 1, userInfo: [NSLocalizedDescriptionKey: "failed with Bearer abc-LEAK-def"])),
            .networkFailure(underlying: URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "https://h/cb?code=code-LEAK")!])),
            .missingCredential(source: "s", underlying: NSError(domain: "x", code: 2, userInfo: [NSLocalizedDescriptionKey: "password=pw-LEAK"])),
        ]
        for error in errors {
            #expect(!error.description.contains("LEAK"), "\(error.description)")
            #expect(!error.message.contains("LEAK"))
            #expect(!String(reflecting: error).contains("LEAK") || error.underlying != nil)
        }
        #expect(Set(AuthorizationError.Code.allCases.map(\.rawValue)).count == 11)
    }

    /// A credential in a query parameter under a name no redactor knows: a transport error that
    /// embeds the failing URL (FoundationNetworking's `URLError` does) must not carry it into
    /// any error text, nor may any other parameter of that URL.
    @Test func queryCredentialsNeverReachErrorText() async throws {
        let credential = Credential.queryParameter(name: "k", value: "Q-KEY/9+LEAK")
        let authorizer = try RequestAuthorizer(policy: .always("q"), sources: ["q": StaticCredentialSource(credential, name: "q")])
        var withQuery = request
        withQuery.path = "/private?session=S355-LEAK"
        let error = await #expect(throws: AuthorizationError.self) {
            try await authorizer.send(withQuery) { (sent: HTTPRequest) -> (HTTPResponse, Data) in
                let url = URL(string: "https://api.example.com\(sent.path ?? "")")!
                throw URLError(.cannotConnectToHost, userInfo: [NSURLErrorFailingURLErrorKey: url,
                                                                  NSLocalizedDescriptionKey: "could not connect to \(url.absoluteString) (k=Q-KEY/9+LEAK)"])
            }
        }
        let texts = [error?.message, error?.description, error?.localizedDescription, error?.underlying.map { String(describing: $0) }].compactMap { $0 }
        #expect(texts.count == 4)
        for text in texts { #expect(!text.contains("LEAK"), "\(text)") }
        #expect(((error?.underlying as? RedactedError)?.original as? URLError)?.code == .cannotConnectToHost)
    }
}
