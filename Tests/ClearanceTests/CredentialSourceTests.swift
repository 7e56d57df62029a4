import Clearance
import Foundation
import ClearanceTesting
import ClearanceTestSupport
import Testing
@testable import Clearance

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// Counts fetches and hands out `token-1`, `token-2`, …; when `held`, each fetch answers only
/// once the test calls ``release()``.
final class CountingFetcher: Sendable {
    let count = Locked(0)
    let held: Bool
    private let released = AsyncStream<Void>.makeStream()
    init(held: Bool = false) { self.held = held }
    var fetches: Int { count.withLock { $0 } }
    /// Lets every held fetch, and every later one, answer.
    func release() { released.continuation.finish() }
    func source(expiresIn: TimeInterval? = nil, clock: TestClock? = nil) -> ClosureCredentialSource {
        ClosureCredentialSource(name: "counting") { [self] in
            let n = count.withLock { $0 += 1; return $0 }
            if held { for await _ in released.stream {} }
            return .bearer("token-\(n)", expiresAt: expiresIn.map { (clock?.now ?? Date()).addingTimeInterval($0) })
        }
    }
}

@Suite("Credential sources")
struct CredentialSourceTests {
    @Test func nilAndEmptyAreMissingCredential() async {
        for source in [
            ClosureCredentialSource(name: "nil") { nil },
            ClosureCredentialSource(name: "empty") { .bearer("") },
            ClosureCredentialSource.bearerToken(name: "blank") { "   " },
        ] {
            let error = await #expect(throws: AuthorizationError.self) { try await source.credential() }
            #expect(error?.code == .missingCredential)
            #expect(error?.message.contains(source.name) == true)
        }
        let error = await #expect(throws: AuthorizationError.self) { try await StaticCredentialSource(.apiKey("")).credential() }
        #expect(error?.code == .missingCredential)
    }

    @Test func providerErrorsKeepTheUnderlyingError() async {
        let source = ClosureCredentialSource(name: "down") { throw ProviderDown() }
        let error = await #expect(throws: AuthorizationError.self) { try await source.credential() }
        #expect(error?.code == .missingCredential)
        #expect(error?.underlying is ProviderDown)
    }

    @Test func blockingClosuresRunOffTheCooperativePool() async throws {
        // Eight closures block until an async task releases them. Were they run on the
        // cooperative pool (one thread per core here), they would hold every thread and the
        // releasing task could never run: each would time out and yield nil. No timing involved.
        let gate = DispatchSemaphore(value: 0)
        let blocked = Counter()
        let source = ClosureCredentialSource.blocking(name: "blocking") {
            blocked.increment()
            return gate.wait(timeout: .now() + 20) == .success ? .bearer("released-token") : nil
        }
        try await withThrowingTaskGroup(of: Credential.self) { group in
            for _ in 0..<8 { group.addTask { try await source.credential() } }
            // Released only once as many block at once as the cooperative pool has threads (on the
            // pool, those would hold all of them and this check could never run). Not all eight:
            // dispatch adds threads for blocked work only slowly.
            let poolWidth = min(8, ProcessInfo.processInfo.activeProcessorCount)
            try await eventually("\(poolWidth) closures block at once") { blocked.value >= poolWidth }
            for _ in 0..<8 { gate.signal() }
            for try await credential in group { #expect(credential == .bearer("released-token")) }
        }
    }

    @Test func blockingClosureHonoursCancellation() async throws {
        // The closure blocks for 30 s unless the test lets it go at its end.
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        let entered = Counter()
        let source = ClosureCredentialSource.blocking {
            entered.increment()
            _ = gate.wait(timeout: .now() + 30)
            return .bearer("late")
        }
        let task = Task { try await source.credential() }
        try await eventually("the closure is blocking") { entered.value == 1 }
        task.cancel()
        let start = ContinuousClock.now
        let result = await task.result
        #expect(ContinuousClock.now - start < .seconds(15))  // well before the closure's 30 s
        #expect(throws: AuthorizationError.self) { try result.get() }
    }

    @Test func cacheSharesOneFetchAmongConcurrentCallers() async throws {
        let fetcher = CountingFetcher(held: true)
        let cache = CachingCredentialSource(fetcher.source())
        let results = try await withThrowingTaskGroup(of: Credential.self) { group in
            for _ in 0..<1_000 { group.addTask { try await cache.credential() } }
            // The fetch answers only once all 1,000 callers wait for it.
            try await eventually("all 1,000 callers wait for the fetch") { cache.waitingCallers == 1_000 }
            fetcher.release()
            return try await group.reduce(into: [Credential]()) { $0.append($1) }
        }
        #expect(fetcher.fetches == 1)
        #expect(Set(results) == [.bearer("token-1")])
    }

    @Test func cacheRenewsWithinLeewayOfExpiry() async throws {
        let clock = TestClock()
        let fetcher = CountingFetcher()
        let cache = CachingCredentialSource(fetcher.source(expiresIn: 100, clock: clock), leeway: 10, now: { clock.now })
        #expect(try await cache.credential().authorizationValue == "Bearer token-1")
        clock.advance(89)
        #expect(try await cache.credential().authorizationValue == "Bearer token-1")
        clock.advance(2)  // 91 s: inside the 10 s leeway
        #expect(try await cache.credential().authorizationValue == "Bearer token-2")
        #expect(fetcher.fetches == 2)
    }

    @Test func maxAgeAppliesToCredentialsWithoutExpiry() async throws {
        let clock = TestClock()
        let fetcher = CountingFetcher()
        let cache = CachingCredentialSource(fetcher.source(), leeway: 0, maxAge: 60, now: { clock.now })
        _ = try await cache.credential()
        clock.advance(59)
        _ = try await cache.credential()
        clock.advance(2)
        _ = try await cache.credential()
        #expect(fetcher.fetches == 2)
    }

    @Test func refreshOnlyDropsTheRejectedCredential() async throws {
        let fetcher = CountingFetcher()
        let cache = CachingCredentialSource(fetcher.source(), initial: .bearer("old"))
        // A thousand requests all rejected with the same old token: one refresh.
        let refreshed = try await withThrowingTaskGroup(of: Credential.self) { group in
            for _ in 0..<1_000 { group.addTask { try await cache.refreshCredential(after: .bearer("old")) } }
            return try await group.reduce(into: Set<Credential>()) { $0.insert($1) }
        }
        #expect(refreshed == [.bearer("token-1")])
        #expect(fetcher.fetches == 1)
        // A late 401 for the old token does not throw away the new one.
        #expect(try await cache.refreshCredential(after: .bearer("old")) == .bearer("token-1"))
        #expect(fetcher.fetches == 1)
        cache.invalidate()
        #expect(try await cache.credential() == .bearer("token-2"))
    }

    @Test func failuresAreSharedAndReported() async throws {
        let events = AuthorizationEvents(notificationCenter: nil)
        let stream = events.events
        let calls = Counter()
        let released = AsyncStream<Void>.makeStream()
        let cache = CachingCredentialSource(ClosureCredentialSource(name: "flaky") {
            calls.increment()
            for await _ in released.stream {}  // fails only once the test lets it
            return nil
        }, name: "flaky", events: events)
        try await withThrowingTaskGroup(of: AuthorizationError.Code?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    do { _ = try await cache.credential(); return nil } catch { return AuthorizationError(wrapping: error).code }
                }
            }
            try await eventually("all 50 callers wait for the fetch") { cache.waitingCallers == 50 }
            released.continuation.finish()
            for try await code in group { #expect(code == .missingCredential) }
        }
        #expect(calls.value == 1)
        var iterator = stream.makeAsyncIterator()
        let event = await iterator.next()
        guard case .failed(let source, let error)? = event else {
            Issue.record("expected a failed event, got \(String(describing: event))")
            return
        }
        #expect(source == "flaky" && error.code == .missingCredential)
    }

    @Test func eventsReachStreamsAndNotificationCenter() async throws {
        let center = NotificationCenter()
        let events = AuthorizationEvents(notificationCenter: center)
        let received = Locked<[String]>([])
        let observer = center.addObserver(forName: AuthorizationEvents.notificationName, object: nil, queue: nil) { note in
            if let event = note.userInfo?[AuthorizationEvents.eventKey] as? AuthorizationEvent {
                received.withLock { $0.append(event.description) }
            }
        }
        defer { center.removeObserver(observer) }
        let stream = events.events
        let cache = CachingCredentialSource(CountingFetcher().source(), name: "c", initial: .bearer("old"), events: events)
        _ = try await cache.refreshCredential(after: .bearer("old"))
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        let second = await iterator.next()
        #expect(first?.description == "invalidated(c)")
        #expect(second?.description == "refreshed(c)")
        #expect(received.withLock { $0 } == ["invalidated(c)", "refreshed(c)"])
    }

    @Test func fallbackSkipsMissingButNotOtherFailures() async throws {
        let missing = ClosureCredentialSource(name: "customer") { nil }
        let key = StaticCredentialSource(.apiKey("key"), name: "key")
        let found = try await FallbackCredentialSource([("customer", missing), ("key", key)]).resolve()
        #expect(found.name == "key" && found.credential == .apiKey("key"))

        let broken = ClosureCredentialSource(name: "broken") { throw AuthorizationError.networkFailure(underlying: URLError(.timedOut)) }
        let error = await #expect(throws: AuthorizationError.self) {
            try await FallbackCredentialSource([("broken", broken), ("key", key)]).resolve()
        }
        #expect(error?.code == .networkFailure)
    }
}
