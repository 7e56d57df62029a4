import Clearance
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceTestSupport
import Foundation
import Testing

/// When the provider's key set is fetched: on first use, once for an unknown key (at most once a
/// minute), again after a day, and every fetch shared by whoever needs it at the time.
@Suite("OpenID key set")
struct KeySetTests {
    @Test("an unknown kid refetches the set once, at most once a minute")
    func unknownKeyRefetchLimit() async throws {
        let clock = ManualClock()
        try await withHarness(behaviour { $0.publishedKeys = [.init(.rsa)] }, clock: clock) { harness in
            try await harness.signIn()
            #expect(harness.provider.counters.keySet == 1)
            harness.provider.behave { $0.signIn = HostileTokenRecipe(signature: .key(.rotatedRSA)) }
            try await harness.expectRefusedSignIn(.unknownKey)
            #expect(harness.provider.counters.keySet == 2, "one refetch for the unknown kid")
            clock.advance(by: .seconds(30))
            try await harness.expectRefusedSignIn(.unknownKey)
            #expect(harness.provider.counters.keySet == 2, "no second refetch within a minute")
            clock.advance(by: .seconds(31))
            harness.provider.behave { $0.publishedKeys = [.init(.rsa), .init(.rotatedRSA)] }
            try await harness.signIn()
            #expect(harness.provider.counters.keySet == 3, "a minute later, the unknown kid refetches again and is found")
        }
    }

    @Test("the set and the discovery document are fetched again after a day; that does not count toward the minute")
    func dailyRefresh() async throws {
        let clock = ManualClock()
        try await withHarness(behaviour { $0.publishedKeys = [.init(.rsa)] }, clock: clock) { harness in
            try await harness.signIn()
            #expect(harness.provider.counters.keySet == 1 && harness.provider.counters.discovery == 1)
            try await harness.session.refresh()
            #expect(harness.provider.counters.keySet == 1 && harness.provider.counters.discovery == 1, "younger than a day: cached")
            clock.advance(by: .seconds(24 * 3_600 + 1))
            try await harness.session.refresh()
            #expect(harness.provider.counters.keySet == 2 && harness.provider.counters.discovery == 2, "older than a day: fetched again")
            harness.provider.behave {
                $0.publishedKeys = [.init(.rsa), .init(.rotatedRSA)]
                $0.refresh = HostileTokenRecipe(signature: .key(.rotatedRSA))
            }
            try await harness.session.refresh()
            #expect(harness.provider.counters.keySet == 3, "the daily fetch did not use up the unknown-key refetch")
            #expect(harness.session.identity?.subject == "hostile-subject-1")
        }
    }

    @Test("twenty verifications meeting the same unknown kid share one refetch (SingleFlight)")
    func concurrentUnknownKeysShareOneFetch() async throws {
        try await withHarness(behaviour { $0.publishedKeys = [.init(.rsa)] }) { harness in
            let verifier = harness.openID.verifier(clientID: harness.provider.clientID)
            _ = try await verifier.verify(try await harness.provider.idToken(HostileTokenRecipe()))
            #expect(harness.provider.counters.keySet == 1)
            harness.provider.behave { $0.publishedKeys = [.init(.rsa), .init(.rotatedRSA)] }
            let token = try await harness.provider.idToken(HostileTokenRecipe(signature: .key(.rotatedRSA)))
            let subjects = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await verifier.verify(token).subject } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(subjects == Array(repeating: "hostile-subject-1", count: 20))
            #expect(harness.provider.counters.keySet == 2)
        }
    }

    @Test("key set entries that cannot verify signatures are skipped: encryption keys, symmetric keys, unknown kinds")
    func unusableKeysAreSkipped() async throws {
        let unusable = behaviour {
            $0.publishedKeys = [.init(.rsa, use: "enc"), .init(.ec)]
            $0.rawKeys = [
                .object(["kty": .string("oct"), "k": .string("c2VjcmV0"), "kid": .string("rsa-1")]),
                .object(["kty": .string("EC"), "crv": .string("secp256k1"), "x": .string("AA"), "y": .string("AA"), "kid": .string("k1")]),
                .string("not a key"),
            ]
        }
        try await withHarness(unusable) { harness in
            // The only entry with the token's kid is for encryption: no key for it, after one refetch.
            try await harness.expectRefusedSignIn(.unknownKey)
            #expect(harness.provider.counters.keySet == 2)
            // The usable key of the same set still verifies.
            harness.provider.behave { $0.signIn = HostileTokenRecipe(signature: .key(.ec)) }
            try await harness.signIn()
            #expect(harness.session.isAuthenticated)
        }
    }
}
