import Clearance
@testable import ClearanceBloomreach
import Foundation
import Testing

/// The source's state as a value: lookups, customer switches and stale answers.
@Suite("Customer token cache")
struct CustomerTokenCacheTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func token(_ name: String, expiresIn seconds: TimeInterval?) -> CustomerTokenCache.Token {
        CustomerTokenCache.Token(credential: .bearer(name), raw: name, expiresAt: seconds.map { now.addingTimeInterval($0) }, receivedAt: now)
    }

    static func attempt(_ cache: inout CustomerTokenCache) throws -> CustomerTokenCache.Attempt {
        guard case .fetch(let attempt, _) = cache.lookup(now: now, leeway: 60) else { throw CancellationError() }
        return attempt
    }

    @Test func freshRenewingAndExpiredLookups() throws {
        var cache = CustomerTokenCache(customer: ["registered": "jane"])
        let attempt = try Self.attempt(&cache)
        let accepted = cache.accept(Self.token("a", expiresIn: 600), from: attempt)
        #expect(accepted)
        guard case .fresh(let fresh) = cache.lookup(now: Self.now.addingTimeInterval(539), leeway: 60), fresh == .bearer("a") else { Issue.record("not fresh"); return }
        guard case .fetch(_, .aboutToExpire?) = cache.lookup(now: Self.now.addingTimeInterval(540), leeway: 60) else { Issue.record("no warning"); return }
        guard case .fetch(_, nil) = cache.lookup(now: Self.now.addingTimeInterval(541), leeway: 60) else { Issue.record("warned twice"); return }
        #expect(cache.token != nil)                                     // still valid while renewed
        guard case .fetch(_, .expired?) = cache.lookup(now: Self.now.addingTimeInterval(600), leeway: 60) else { Issue.record("not expired"); return }
        #expect(cache.token == nil)
    }

    @Test func aSwitchMovesTheGenerationAndStaleAnswersAreRefused() throws {
        var cache = CustomerTokenCache(customer: ["registered": "jane"])
        let janes = try Self.attempt(&cache)
        let same = cache.switchCustomer(to: ["registered": "jane"])
        let previous = cache.switchCustomer(to: ["registered": "john"])
        #expect(same == nil && previous == ["registered": "jane"])
        #expect(!cache.isCurrent(janes.generation))
        let staleAccepted = cache.accept(Self.token("jane's", expiresIn: nil), from: janes)
        let staleRestore = cache.claimRestore(for: janes)
        #expect(!staleAccepted && !staleRestore)
        let johns = try Self.attempt(&cache)
        #expect(johns.flight !== janes.flight && johns.customer == ["registered": "john"])
        let (firstRestore, secondRestore) = (cache.claimRestore(for: johns), cache.claimRestore(for: johns))
        #expect(firstRestore && !secondRestore)
        let accepted = cache.accept(Self.token("john's", expiresIn: nil), from: johns)
        let (droppedOther, droppedOwn, droppedAgain) = (cache.drop(.bearer("jane's")), cache.drop(.bearer("john's")), cache.dropAny())
        #expect(accepted && !droppedOther && droppedOwn && !droppedAgain)
    }
}
