import Clearance
import ClearanceDevelopment
import ClearanceEntitlements
import ClearanceHTTP
import ClearanceStore
import ClearanceTestSupport
import Foundation
import Logging

/// The development Pugpig endpoints on loopback with known users and content, and providers
/// configured against them, sharing a clock the test moves; a temporary directory for the
/// test's files, removed by ``stop()``.
struct PugpigFixture {
    static let alice = DevelopmentUser(token: "alice-password", id: "alice", entitlements: .all)
    static let bob = DevelopmentUser(token: "bob-password", id: "bob", entitlements: .issues(["issue-1", "issue-2"]))
    static let carol = DevelopmentUser(token: "carol-password", id: "carol", entitlements: .lapsed)
    static let dave = DevelopmentUser(token: "dave-password", id: "dave", entitlements: .suspended)
    static let users = [alice, bob, carol, dave]
    /// A file served at `/content/<product>/edition.zip` for every product.
    static let edition = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    let clock: TestClock
    let server: DevelopmentPugpigServer
    let running: RunningServer
    let directory: TemporaryDirectory

    init(settings: DevelopmentPugpigSettings = DevelopmentPugpigSettings(secret: "fixture-secret-of-thirty-two-bytes!!"), clock: TestClock = TestClock()) async throws {
        self.clock = clock
        directory = try TemporaryDirectory()
        server = DevelopmentPugpigServer(users: Self.users, settings: settings, now: clock.function)
        for product in ["issue-1", "issue-2", "issue-3"] {
            server.library.add(Self.edition, product: product, path: "edition.zip")
        }
        running = try await RunningServer.start(server.router(), logger: Logger.silent("pugpig.fixture"))
    }

    var base: URL { running.baseURL.appending(path: "pugpig") }
    var endpoints: PugpigEndpoints { .standard(base: base) }

    func contentURL(_ product: String, _ file: String = "edition.zip") -> URL {
        running.baseURL.appending(path: "content/\(product)/\(file)")
    }

    func configuration(
        store: any SecureStore<StoredEntitlements> = InMemoryStore<StoredEntitlements>(),
        endpoints: PugpigEndpoints? = nil,
        method: PugpigRequestMethod = .get,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        notificationCenter: NotificationCenter? = nil
    ) -> PugpigConfiguration {
        // The verification deadline runs on real time while the test's clock is made up: it is
        // stretched under a sanitizer (TestTiming) so that a slowed run does not take a
        // verification for an unreachable service. The one test of the deadline sets its own.
        PugpigConfiguration(
            endpoints: endpoints ?? self.endpoints, method: method, store: store,
            verificationTimeout: 10 * Double(TestTiming.scale), transport: transport,
            notificationCenter: notificationCenter, now: clock.function, logger: Logger.silent("pugpig.provider"))
    }

    func provider(store: any SecureStore<StoredEntitlements> = InMemoryStore<StoredEntitlements>(), method: PugpigRequestMethod = .get, transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared) -> PugpigEntitlementProvider {
        PugpigEntitlementProvider(configuration: configuration(store: store, method: method, transport: transport))
    }

    /// A provider signed in as `user`.
    func signedIn(_ user: DevelopmentUser, store: any SecureStore<StoredEntitlements> = InMemoryStore<StoredEntitlements>(), transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared) async throws -> PugpigEntitlementProvider {
        let provider = provider(store: store, transport: transport)
        try await provider.signIn(username: user.id, password: user.token)
        return provider
    }

    /// Runs `body` with a started fixture and stops it (its server and its directory) afterwards,
    /// also when `body` throws.
    static func with<T>(
        settings: DevelopmentPugpigSettings = DevelopmentPugpigSettings(secret: "fixture-secret-of-thirty-two-bytes!!"),
        clock: TestClock = TestClock(),
        _ body: (PugpigFixture) async throws -> T
    ) async throws -> T {
        let fixture = try await PugpigFixture(settings: settings, clock: clock)
        return try await withCleanup { try await body(fixture) } cleanup: { await fixture.stop() }
    }

    func stop() async {
        await running.stop()
        directory.remove()
    }
}
