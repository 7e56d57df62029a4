@testable import ClearanceDevelopment
import Crypto
import Foundation
import Testing

/// The development servers' memory of what they issued, bounded by count and age.
@Suite("Development ledgers")
struct DevelopmentLedgerTests {
    private let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func expiringRecordsDropExpiredOnesThenTheFirstToExpire() {
        var records = ExpiringRecords<String, Int>()
        records.insert("a", 1, expiresAt: start + 10, now: start, limit: 2)
        records.insert("b", 2, expiresAt: start + 5, now: start, limit: 2)
        #expect(records.insert("c", 3, expiresAt: start + 20, now: start, limit: 2) == [2])
        #expect(records.value("a", now: start) == 1 && records.value("b", now: start) == nil)
        #expect(records.value("a", now: start + 10) == nil, "expired at its time")
        records.insert("d", 4, expiresAt: start + 30, now: start + 11, limit: 2)
        #expect(records.storedCount == 2, "the expired one went first")
        #expect(records.remove("c", now: start + 11) == 3)
        #expect(records.count(now: start + 11) == 1)
    }

    @Test func unknownGrantTypesAreCountedTogether() async {
        let ledger = DevelopmentTokenLedger()
        for index in 0..<100 { await ledger.countTokenRequest("grant-\(index)") }
        await ledger.countTokenRequest("password")
        await ledger.countTokenRequest("")
        #expect(await ledger.tokenRequests == ["unsupported": 100, "password": 1, "": 1])
    }

    @Test func theLedgerKeepsAtMostItsLimitOfEachRecord() async {
        var limits = DevelopmentTokenLedger.Limits()
        limits.refreshTokens = 5
        limits.revokedAccessTokens = 5
        let ledger = DevelopmentTokenLedger(limits: limits)
        for index in 0..<50 {
            let record = DevelopmentTokenLedger.RefreshRecord(subject: "s", clientID: "c", scope: nil, expiresAt: start + Double(100 + index))
            await ledger.store(refreshToken: "r\(index)", record, now: start)
            await ledger.revokeAccessToken(id: "j\(index)", expiresAt: start + Double(100 + index), now: start)
        }
        #expect(await ledger.recordCount == 10)
        #expect(await ledger.refreshRecord("r49", clientID: "c", now: start, consume: false) != nil)
        #expect(await ledger.refreshRecord("r0", clientID: "c", now: start, consume: false) == nil)
        #expect(await ledger.isRevoked(accessTokenID: "j49", now: start))
        #expect(!(await ledger.isRevoked(accessTokenID: "j49", now: start + 200)), "forgotten once the token expired")
    }

    @Test func aForgottenSignOutNeverBringsATokenBack() {
        var signedOut = SignedOutTokens()
        let tokens = (0..<(SignedOutTokens.limit + 1)).map { DevelopmentPugpigToken(userID: "alice", issuedAt: start + Double($0)) }
        for (index, token) in tokens.enumerated() { signedOut.insert("t\(index)", token, renewalWindow: 3_600, now: start) }
        #expect(signedOut.count == SignedOutTokens.limit)
        #expect(signedOut.contains("t0", tokens[0], now: start), "evicted, and still signed out")
        let later = DevelopmentPugpigToken(userID: "alice", issuedAt: start + Double(SignedOutTokens.limit + 10))
        #expect(!signedOut.contains("later", later, now: start))
        let bob = DevelopmentPugpigToken(userID: "bob", issuedAt: start)
        #expect(!signedOut.contains("bob", bob, now: start))
    }

    @Test func pugpigTokensKeepTheirIssueTimeToTheMillisecond() throws {
        // Issued late in a second: in whole seconds it was read back up to a second older, and a
        // one-second lifetime handed out tokens already stale (a renewal answered stale again).
        let secret = SymmetricKey(data: Data(repeating: 7, count: 32))
        let issued = start + 0.987
        let token = DevelopmentPugpigToken(userID: "alice", issuedAt: issued)
        let read = try #require(DevelopmentPugpigToken(verifying: token.text(secret: secret), secret: secret))
        #expect(read == token && read.userID == "alice")
        #expect(abs(read.age(at: issued + 0.5) - 0.5) < 0.002)
        #expect(token.text(secret: secret).split(separator: ".")[1] == "1700000000987")
        // Tampered issue times and other secrets do not verify.
        let later = token.text(secret: secret).replacingOccurrences(of: "1700000000987", with: "1700000009987")
        #expect(DevelopmentPugpigToken(verifying: later, secret: secret) == nil)
        #expect(DevelopmentPugpigToken(verifying: token.text(secret: secret), secret: SymmetricKey(data: Data(repeating: 8, count: 32))) == nil)
    }
}
