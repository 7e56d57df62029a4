import Clearance
import ClearanceDevelopment
import ClearanceEntitlements
import ClearanceHTTP
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Testing

/// Protected downloads: progress, the file only when complete, cancellation and failure
/// leaving nothing, one retry with fresh credentials, credentials kept to their origin.
@Suite(.timeLimit(.minutes(2))) struct ContentDownloaderTests {
    /// Hands out numbered credentials and counts the requests for them.
    final class CountingProvider: EntitlementProvider {
        let calls = Locked(0)
        let headers: HTTPFields

        init(headers: HTTPFields = [HTTPField.Name("X-Edge-Token")!: "edge-secret"]) { self.headers = headers }

        func access(to product: String) async -> EntitlementAccess { .granted }

        func credentials(for product: String) async throws(EntitlementError) -> ContentCredentials {
            let n = calls.withLock { $0 += 1; return $0 }
            return ContentCredentials(userID: "reader", password: "password-\(n)", headers: headers)
        }

        var count: Int { calls.withLock { $0 } }
    }

    static func basic(_ password: String) -> String { "Basic " + Data("reader:\(password)".utf8).base64EncodedString() }

    @Test(arguments: ["asynchttpclient", "urlsession"])
    func aDownloadReportsProgressAndAppearsComplete(transportName: String) async throws {
        try await PugpigFixture.with { fixture in
            let directory = fixture.directory
            let transport: any HTTPTransport = transportName == "urlsession" ? URLSessionHTTPTransport() : AsyncHTTPClientHTTPTransport.shared
            let provider = try await fixture.signedIn(PugpigFixture.bob)
            let destination = directory.file("issue-1.zip")
            let download = ContentDownloader(provider: provider, transport: transport).start("issue-1", from: fixture.contentURL("issue-1"), to: destination)
            var seen: [DownloadProgress] = []
            for await progress in download.progress { seen.append(progress) }
            let bytes = try await download.result()
            #expect(bytes == Int64(PugpigFixture.edition.count))
            #expect(try Data(contentsOf: destination) == PugpigFixture.edition)
            #expect(directory.contents() == ["issue-1.zip"])
            #expect(seen.last == DownloadProgress(bytesReceived: bytes, expectedBytes: bytes))
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.bytesReceived <= $1.bytesReceived })
            #expect(seen.last?.fraction == 1)
            #expect(fixture.server.stats.count("content") == 1 && fixture.server.stats.count("content_refused") == 0)
        }
    }

    @Test func aProductOutsideTheSubscriptionIsRefusedBeforeAnyDownload() async throws {
        try await PugpigFixture.with { fixture in
            let directory = fixture.directory
            try Data("earlier".utf8).write(to: directory.file("issue-3.zip"))
            let provider = try await fixture.signedIn(PugpigFixture.bob)
            await expectError(.productUnavailable) {
                try await ContentDownloader(provider: provider).download("issue-3", from: fixture.contentURL("issue-3"), to: directory.file("issue-3.zip"))
            }
            #expect(try Data(contentsOf: directory.file("issue-3.zip")) == Data("earlier".utf8))  // untouched
            #expect(directory.contents() == ["issue-3.zip"])
            #expect(fixture.server.stats.count("content") == 0)
        }
    }

    @Test func theContentServerChecksTheEditionCredentialsAndTheEdgeHeader() async throws {
        try await PugpigFixture.with { fixture in
            let alice = try await fixture.signedIn(PugpigFixture.alice)
            var credentials = try await alice.credentials(for: "issue-1")
            // Credentials for another product do not open this one.
            let other = try await alice.credentials(for: "issue-2")
            let transport = AsyncHTTPClientHTTPTransport.shared
            var request = HTTPRequest(method: .get, url: fixture.contentURL("issue-1"))
            try other.apply(to: &request)
            #expect(try await transport.send(request, body: nil).0.status == .unauthorized)
            // Without the edge header neither.
            credentials.headers = [:]
            request = HTTPRequest(method: .get, url: fixture.contentURL("issue-1"))
            try credentials.apply(to: &request)
            #expect(try await transport.send(request, body: nil).0.status == .unauthorized)
            // Path tricks find nothing.
            let full = try await alice.credentials(for: "issue-1")
            request = HTTPRequest(method: .get, url: URL(string: fixture.contentURL("issue-1").absoluteString.replacingOccurrences(of: "edition.zip", with: "..%2F..%2Fsecret"))!)
            try full.apply(to: &request)
            #expect(try await transport.send(request, body: nil).0.status == .notFound)
        }
    }

    /// A server that trickles a 16 MB body, 4 kB every 5 ms.
    static func slowServer() async throws -> RunningServer {
        let router = Router()
        router.get("/slow") { _, _ in
            Response(status: .ok, headers: [.contentLength: "\(1 << 24)"], body: ResponseBody(contentLength: 1 << 24) { writer in
                for _ in 0..<(1 << 24) / 4096 {
                    try await writer.write(ByteBuffer(repeating: 7, count: 4096))
                    // sleep: the fake server trickles its body on purpose (about 20 s in all): the download is still running when the test cancels it
                    try await Task.sleep(for: .milliseconds(5))
                }
                try await writer.finish(nil)
            })
        }
        return try await RunningServer.start(router, logger: Logger.silent("slow"))
    }

    @Test func cancellationLeavesNoFile() async throws {
        let server = try await Self.slowServer()
        defer { Task { await server.stop() } }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data("earlier".utf8).write(to: directory.file("edition.zip"))
        let download = ContentDownloader(provider: CountingProvider()).start("issue-1", from: server.baseURL.appending(path: "slow"), to: directory.file("edition.zip"))
        _ = try await first(download.progress, timeout: .seconds(10)) { $0.bytesReceived > 0 }
        download.cancel()
        do {
            _ = try await download.result()
            Issue.record("a cancelled download has no result")
        } catch {
            #expect(error.isCancellation)
        }
        #expect(directory.contents() == ["edition.zip"])  // no temporary file left
        #expect(try Data(contentsOf: directory.file("edition.zip")) == Data("earlier".utf8))
    }

    @Test func cancellingTheCallingTaskCancelsTheDownload() async throws {
        let server = try await Self.slowServer()
        defer { Task { await server.stop() } }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let started = AsyncStream<Void>.makeStream()
        let downloader = ContentDownloader(provider: CountingProvider(), transport: URLSessionHTTPTransport())
        let task = Task {
            try await downloader.download("p", from: server.baseURL.appending(path: "slow"), to: directory.file("e")) { progress in
                if progress.bytesReceived > 0 { started.continuation.yield() }
            }
        }
        _ = try await first(started.stream, timeout: .seconds(10)) { _ in true }
        #expect(directory.contents().count == 1)  // the temporary file, beside the destination
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled download has no result")
        } catch {
            #expect((error as? EntitlementError)?.isCancellation == true, "\(error)")
        }
        #expect(directory.contents().isEmpty)
    }

    @Test func aFailureMidBodyOrAShortBodyLeavesNoFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let midway = ScriptedTransport { _, _ in
            .failMidBody(status: 200, headers: [.contentLength: "30"], chunks: [Data(repeating: 1, count: 10)], error: URLError(.networkConnectionLost))
        }
        await expectError(.networkFailure) {
            try await ContentDownloader(provider: CountingProvider(), transport: midway).download("p", from: URL(string: "https://cdn.example.com/e")!, to: directory.file("e"))
        }
        let short = ScriptedTransport { _, _ in .respond(status: 200, headers: [.contentLength: "30"], chunks: [Data(repeating: 1, count: 10)]) }
        await expectError(.networkFailure) {
            try await ContentDownloader(provider: CountingProvider(), transport: short).download("p", from: URL(string: "https://cdn.example.com/e")!, to: directory.file("e"))
        }
        let missing = ScriptedTransport { _, _ in .respond(status: 404, chunks: [Data("Not found".utf8)]) }
        do {
            _ = try await ContentDownloader(provider: CountingProvider(), transport: missing).download("p", from: URL(string: "https://cdn.example.com/e")!, to: directory.file("e"))
            Issue.record("a 404 is an error")
        } catch {
            #expect(error.code == .unknown && error.response?.status == 404)
        }
        #expect(directory.contents().isEmpty)
    }

    @Test func a401AsksForFreshCredentialsOnceThenSucceedsOrFails() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Accepts only the second credentials handed out.
        let secondWorks = ScriptedTransport { request, _ in
            request.headerFields[.authorization] == Self.basic("password-2")
                ? .respond(status: 200, chunks: [Data("ok".utf8)])
                : .respond(status: 401, headers: [.wwwAuthenticate: "Basic realm=\"c\""], chunks: [])
        }
        let provider = CountingProvider()
        let bytes = try await ContentDownloader(provider: provider, transport: secondWorks).download("p", from: URL(string: "https://cdn.example.com/e")!, to: directory.file("e"))
        #expect(bytes == 2 && provider.count == 2 && secondWorks.requests.count == 2)

        let never = ScriptedTransport { _, _ in .respond(status: 401, chunks: []) }
        let refused = CountingProvider()
        do {
            _ = try await ContentDownloader(provider: refused, transport: never).download("p", from: URL(string: "https://cdn.example.com/e")!, to: directory.file("f"))
            Issue.record("two 401s are an error")
        } catch {
            #expect(error.code == .unknown && error.response?.status == 401)
        }
        #expect(refused.count == 2 && never.requests.count == 2)  // once, never a loop
        #expect(directory.contents() == ["e"])
    }

    @Test func aNegativeRedirectLimitCountsAsNoneInsteadOfTrapping() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let served = ScriptedTransport { _, _ in .respond(status: 200, headers: [.contentLength: "3"], chunks: [Data("abc".utf8)]) }
        let downloader = ContentDownloader(provider: CountingProvider(), transport: served, maximumRedirects: -5)
        #expect(downloader.maximumRedirects == 0)
        _ = try await downloader.download("p", from: URL(string: "https://cdn.example.com/e")!, to: directory.file("e"))
        #expect(try Data(contentsOf: directory.file("e")) == Data("abc".utf8))
    }

    @Test func plainHTTPToAnotherHostIsRefused() async throws {
        let scripted = ScriptedTransport { _, _ in .respond(status: 200, chunks: []) }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        await expectError(.unknown) {
            try await ContentDownloader(provider: CountingProvider(), transport: scripted).download("p", from: URL(string: "http://cdn.example.com/e")!, to: directory.file("e"))
        }
        #expect(scripted.requests.isEmpty)
    }

    /// Two loopback servers (two origins): the first redirects to itself, then to the other.
    @Test(arguments: ["asynchttpclient", "urlsession"])
    func credentialsNeverFollowARedirectToAnotherOrigin(transportName: String) async throws {
        let seen = Locked<[String: HTTPFields]>([:])
        let other = Router()
        other.get("/edition") { request, _ in
            seen.withLock { $0["other"] = request.headers }
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "from the other origin")))
        }
        let otherServer = try await RunningServer.start(other, logger: Logger.silent("other"))
        defer { Task { await otherServer.stop() } }
        let origin = Router()
        origin.get("/start") { request, _ in
            seen.withLock { $0["start"] = request.headers }
            return Response(status: .found, headers: [.location: "/moved"])
        }
        origin.get("/moved") { request, _ in
            seen.withLock { $0["moved"] = request.headers }
            return Response(status: .temporaryRedirect, headers: [.location: otherServer.baseURL.appending(path: "edition").absoluteString])
        }
        let originServer = try await RunningServer.start(origin, logger: Logger.silent("origin"))
        defer { Task { await originServer.stop() } }

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let transport: any HTTPTransport = transportName == "urlsession" ? URLSessionHTTPTransport() : AsyncHTTPClientHTTPTransport.shared
        let bytes = try await ContentDownloader(provider: CountingProvider(), transport: transport)
            .download("p", from: originServer.baseURL.appending(path: "start"), to: directory.file("e"))
        #expect(bytes == Int64("from the other origin".utf8.count))
        let headers = seen.withLock { $0 }
        let edge = HTTPField.Name("X-Edge-Token")!
        #expect(headers["start"]?[.authorization] == Self.basic("password-1") && headers["start"]?[edge] == "edge-secret")
        #expect(headers["moved"]?[.authorization] == Self.basic("password-1") && headers["moved"]?[edge] == "edge-secret")  // same origin
        #expect(headers["other"]?[.authorization] == nil && headers["other"]?[edge] == nil)  // another origin: nothing
    }
}
