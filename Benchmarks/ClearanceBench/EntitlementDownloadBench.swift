import Clearance
import ClearanceDevelopment
import ClearanceEntitlements
import ClearanceHTTP
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// An authorized download of a 10 MB edition from loopback (edition credentials asked each
/// time, HTTP Basic + edge header checked by the server, streamed to a temporary file, renamed)
/// against a plain GET of the same bytes streamed to a file, in the same run.
struct EntitlementDownloadBench {
    let downloads: Int
    static let editionSize = 10 << 20

    func run() async throws {
        print("\nProtected download: a \(Self.editionSize >> 20) MB edition from loopback, \(downloads) times each")
        let quiet = Logger.silent("bench")
        let users = [DevelopmentUser(token: "bench-password", id: "bench", entitlements: .all)]
        let pugpig = DevelopmentPugpigServer(users: users, settings: DevelopmentPugpigSettings(secret: "bench-edition-secret-bench-edition-secret"))
        let edition = Data((0..<Self.editionSize).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        pugpig.library.add(edition, product: "issue-1", path: "edition.zip")
        let router = pugpig.router()
        let plainBody = ByteBuffer(bytes: edition)
        router.get("/public/edition.zip") { _, _ in Response(status: .ok, body: ResponseBody(byteBuffer: plainBody)) }
        let server = try await RunningServer.start(router, logger: quiet)
        let directory = FileManager.default.temporaryDirectory.appending(path: "clearance-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        defer { Task { await server.stop() } }

        let transport = AsyncHTTPClientHTTPTransport.shared
        let provider = PugpigEntitlementProvider(configuration: PugpigConfiguration(
            endpoints: .standard(base: server.baseURL.appending(path: "pugpig")), transport: transport, notificationCenter: nil, logger: quiet))
        try await provider.signIn(username: "bench", password: "bench-password")
        try await provider.verify()
        let downloader = ContentDownloader(provider: provider, transport: transport, logger: quiet)
        let protected = server.baseURL.appending(path: "content/issue-1/edition.zip")
        let plain = server.baseURL.appending(path: "public/edition.zip")

        // Each download writes a new file (as an app fetching a new edition does); the files are
        // removed between measurements, outside the timed part.
        func plainGet(_ file: URL) async throws {
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            let bytes = try await transport.stream(HTTPRequest(method: .get, url: plain), body: nil) { response, body in
                var count = 0
                for try await chunk in body {
                    try handle.write(contentsOf: chunk)
                    count += chunk.count
                }
                return count
            }
            guard bytes == Self.editionSize else { throw BenchFailure("the plain GET read \(bytes) bytes") }
        }
        func authorized(_ file: URL) async throws {
            let bytes = try await downloader.download("issue-1", from: protected, to: file)
            guard bytes == Int64(Self.editionSize) else { throw BenchFailure("the download wrote \(bytes) bytes") }
        }

        // Warm up both paths, then alternate so load changes hit both alike.
        BenchStatus.measuring("warm-up: one plain GET and one authorized download")
        let plainFile = directory.appending(path: "plain.zip"), protectedFile = directory.appending(path: "protected.zip")
        func clear() throws { for file in [plainFile, protectedFile] { try? FileManager.default.removeItem(at: file) } }
        try await plainGet(plainFile)
        try await authorized(protectedFile)
        var plainTimes: [Double] = []
        var authorizedTimes: [Double] = []
        for run in 0..<downloads {
            BenchStatus.measuring("download \(run + 1) of \(downloads): plain GET, then authorized")
            try clear()
            var start = ContinuousClock.now
            try await plainGet(plainFile)
            plainTimes.append(Measure.seconds(ContinuousClock.now - start))
            start = ContinuousClock.now
            try await authorized(protectedFile)
            authorizedTimes.append(Measure.seconds(ContinuousClock.now - start))
        }
        let plainMedian = Measure.median(plainTimes) * 1000, authorizedMedian = Measure.median(authorizedTimes) * 1000
        Measure.printBaseline("baseline: plain GET streamed to a file (median)", plainMedian, "%10.1f ms")
        Measure.printRatio("authorized download: credentials + Basic + rename (median)", authorizedMedian, unit: "ms", baseline: plainMedian, target: 1.2)
        print("    throughput: plain \(String(format: "%.0f", Double(Self.editionSize) / plainMedian / 1000)) MB/s, authorized \(String(format: "%.0f", Double(Self.editionSize) / authorizedMedian / 1000)) MB/s; edition_credentials calls: \(pugpig.stats.count("edition_credentials"))")
    }
}
