import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve`'s development endpoints against a flood of unique, large, refused requests:
/// what they remember of them is bounded by count and age.
@Suite("clearance serve's development ledgers", .timeLimit(.minutes(8)))
struct ServeDevelopmentLedgerTests {
    /// The reproduction: 2,000 POSTs to `/oauth/token` with a unique 60 KB `grant_type`
    /// (all answered 401) added 120 MB; so did 2,000 long tokens sent to `/pugpig/sign_out`.
    ///
    /// This test sends 700 of each: kept whole, they would add 84 MB, so the 32 MB bound fails
    /// any ledger that keeps more than 280 of each whole, exactly as 2,000 would. The 2,000
    /// cost the debug hub 51 s of CPU, the most of any test, on a 2-core machine that every other
    /// test shares (and 505 s under AddressSanitizer on a loaded machine).
    @Test func sevenHundredUniqueRefusedRequestsOf60KBOfEachKindAddAtMost32MB() async throws {
        try await ServeProcess.with(limits: TestHub.limits(), environment: ServeProcess.memoryMeasuringEnvironment) { serve in
            // Warm up: the first requests of each kind allocate what every later one reuses.
            // (Each flood ends when every one of its requests was answered.)
            try await Self.flood(serve, count: 50)
            let before = try #require(serve.residentBytes)
            try await Self.flood(serve, count: 700)
            let added = try #require(serve.residentBytes) - before
            #expect(added <= 32 << 20, "RSS grew by \(added >> 20) MB (from \(before >> 20) MB)")
            #expect(serve.process.isRunning)
        }
    }

    /// `count` POSTs to `/oauth/token` with a unique 60 KB grant type and as many to
    /// `/pugpig/sign_out` with a unique 60 KB token, eight at a time.
    static func flood(_ serve: ServeProcess, count: Int) async throws {
        let filler = String(repeating: "x", count: 60_000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in stride(from: worker, to: count, by: 8) {
                        let unique = "\(index)-\(UUID().uuidString)-\(filler)"
                        let token = try await serve.http.form("/oauth/token", "grant_type=\(unique)")
                        guard token.status == 401 else { throw ChildProcess.Failure("/oauth/token answered \(token.status)") }
                        let signOut = try await serve.http.form("/pugpig/sign_out", "token=\(unique)")
                        guard signOut.status == 200 else { throw ChildProcess.Failure("/pugpig/sign_out answered \(signOut.status)") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
