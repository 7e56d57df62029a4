import ClearanceServer
import Foundation
import Testing

/// `CustomerTokenMinter` and `CustomerTokenVerifier` on their own (PyJWT's tokens are in
/// `CustomerTokenInteropTests`).
@Suite("Customer token minting and verification")
struct CustomerTokenVerifierTests {
    static let secret = "0123456789abcdef0123456789abcdef"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let jane = ["registered": "jane@example.com"]

    static func key(_ id: String = "k1", secret: String = secret) throws(CustomerTokenError) -> CustomerTokenKey {
        try CustomerTokenKey(id: id, secret: secret)
    }

    /// `json` as a base64url segment.
    static func segment(_ json: String) -> String {
        Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// A token with `header` and `payload` (JSON texts) and `signature` (base64url text).
    static func handMade(header: String, payload: String, signature: String = "") -> String {
        segment(header) + "." + segment(payload) + "." + signature
    }

    @Test func secretsShorterThan32BytesAreRefusedBeforeJWTKitSeesThem() throws {
        for length in [0, 1, 16, 31] {
            #expect(throws: CustomerTokenError.weakSecret(byteCount: length)) { try CustomerTokenKey(id: "k1", secret: String(repeating: "x", count: length)) }
        }
        #expect(throws: Never.self) { try CustomerTokenKey(id: "k1", secret: String(repeating: "x", count: 32)) }
        #expect(CustomerTokenError.weakSecret(byteCount: 5).message == "The secret has 5 bytes; HS256 needs at least 32.")
        for id in ["", "line\nbreak", String(repeating: "k", count: 257)] {
            #expect((try? CustomerTokenKey(id: id, secret: Self.secret)) == nil)
        }
        #expect(try Self.key().description == "CustomerTokenKey(id: k1, secret: <redacted>)")
    }

    @Test func verifierConfigurationThatCannotWorkIsRefused() async throws {
        let key = try Self.key()
        await #expect(throws: CustomerTokenError.self) { try await CustomerTokenVerifier(keys: []) }
        await #expect(throws: CustomerTokenError.self) { try await CustomerTokenVerifier(keys: [key, try Self.key(secret: Self.secret + "x")]) }
        for leeway in [-1.0, 61, .infinity, .nan] {
            await #expect(throws: CustomerTokenError.self) { try await CustomerTokenVerifier(keys: [key], leeway: leeway) }
        }
        _ = try await CustomerTokenVerifier(keys: [key], leeway: 60)
    }

    @Test func mintedTokensCarryKidSubAndWholeSecondExpiry() async throws {
        let minter = await CustomerTokenMinter(key: try Self.key(), now: { Self.start.addingTimeInterval(0.75) })
        let token = try await minter.mint(customerIDs: Self.jane, ttl: 600)
        let parts = token.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        #expect(Self.decode(parts[0]) == #"{"alg":"HS256","kid":"k1","typ":"JWT"}"#)
        #expect(Self.decode(parts[1]) == #"{"exp":1800000600,"sub":{"registered":"jane@example.com"}}"#)

        let verifier = try await CustomerTokenVerifier(keys: [try Self.key()], now: { Self.start })
        let verified = try await verifier.verify(token)
        #expect(verified == VerifiedCustomerToken(keyID: "k1", customerIDs: Self.jane, expiresAt: Date(timeIntervalSince1970: 1_800_000_600)))

        let forever = try await minter.mint(customerIDs: Self.jane, expiresAt: nil)
        #expect(Self.decode(String(forever.split(separator: ".")[1])) == #"{"sub":{"registered":"jane@example.com"}}"#)
        #expect(try await verifier.verify(forever).expiresAt == nil)
    }

    @Test func mintingRefusesWhatCannotBeAToken() async throws {
        let minter = await CustomerTokenMinter(key: try Self.key())
        for ttl in [0.0, -5, 0.5, CustomerTokenMinter.maximumTTL + 1, .infinity, .nan] {
            await #expect(throws: CustomerTokenError.self) { try await minter.mint(customerIDs: Self.jane, ttl: ttl) }
        }
        for ids in [[:], ["": "x"], ["registered": ""]] {
            await #expect(throws: CustomerTokenError.self) { try await minter.mint(customerIDs: ids, ttl: 60) }
        }
        await #expect(throws: CustomerTokenError.self) { try await minter.mint(customerIDs: Self.jane, expiresAt: Date(timeIntervalSince1970: 1e300)) }
    }

    @Test func expiryHasAClockLeewayOfAtMostSixtySeconds() async throws {
        let minter = await CustomerTokenMinter(key: try Self.key(), now: { Self.start })
        let token = try await minter.mint(customerIDs: Self.jane, ttl: 60)
        let expiry = Self.start.addingTimeInterval(60)
        func verify(at moment: Date, leeway: TimeInterval) async throws(CustomerTokenError) -> VerifiedCustomerToken {
            try await CustomerTokenVerifier(keys: [try Self.key()], leeway: leeway, now: { moment }).verify(token)
        }
        _ = try await verify(at: expiry.addingTimeInterval(-1), leeway: 0)
        await #expect(throws: CustomerTokenError.expired(at: expiry)) { try await verify(at: expiry, leeway: 0) }
        _ = try await verify(at: expiry.addingTimeInterval(59), leeway: 60)
        await #expect(throws: CustomerTokenError.expired(at: expiry)) { try await verify(at: expiry.addingTimeInterval(60), leeway: 60) }
        #expect(CustomerTokenError.expired(at: expiry).message == "The customer token expired at 2027-01-15T08:01:00Z.")
    }

    @Test func theKidPicksTheKeyAndNoOtherKeyIsTried() async throws {
        let first = try Self.key("k1"), second = try Self.key("k2", secret: "another secret of at least 32 bytes!")
        let verifier = try await CustomerTokenVerifier(keys: [first, second], now: { Self.start })
        let byFirst = try await CustomerTokenMinter(key: first, now: { Self.start }).mint(customerIDs: Self.jane, ttl: 60)
        let bySecond = try await CustomerTokenMinter(key: second, now: { Self.start }).mint(customerIDs: Self.jane, ttl: 60)
        #expect(try await verifier.verify(byFirst).keyID == "k1")
        #expect(try await verifier.verify(bySecond).keyID == "k2")
        // Signed with k1's secret but naming k2: k2's key is the only one tried.
        let misnamed = try await CustomerTokenMinter(key: try Self.key("k2"), now: { Self.start }).mint(customerIDs: Self.jane, ttl: 60)
        await #expect(throws: CustomerTokenError.invalidSignature) { try await verifier.verify(misnamed) }
        let unknown = try await CustomerTokenMinter(key: try Self.key("k3"), now: { Self.start }).mint(customerIDs: Self.jane, ttl: 60)
        await #expect(throws: CustomerTokenError.unknownKeyID) { try await verifier.verify(unknown) }
        #expect(verifier.keyIDs == ["k1", "k2"])
    }

    @Test func badTokensAreRefusedWithTheirOwnCodeAndNeverEchoed() async throws {
        let verifier = try await CustomerTokenVerifier(keys: [try Self.key()], now: { Self.start })
        let good = try await CustomerTokenMinter(key: try Self.key(), now: { Self.start }).mint(customerIDs: Self.jane, ttl: 60)
        let parts = good.split(separator: ".").map(String.init)
        let cases: [(String, CustomerTokenError.Code)] = [
            (Self.handMade(header: #"{"alg":"none","kid":"k1"}"#, payload: #"{"sub":{"registered":"jane@example.com"}}"#), .algorithmNone),
            (Self.handMade(header: #"{"alg":"NONE","kid":"k1"}"#, payload: #"{"sub":{"a":"b"}}"#, signature: parts[2]), .algorithmNone),
            (Self.handMade(header: #"{"alg":"HS512","kid":"k1"}"#, payload: #"{"sub":{"a":"b"}}"#, signature: parts[2]), .unsupportedAlgorithm),
            (Self.handMade(header: #"{"alg":"hs256","kid":"k1"}"#, payload: #"{"sub":{"a":"b"}}"#, signature: parts[2]), .unsupportedAlgorithm),
            (Self.handMade(header: #"{"kid":"k1"}"#, payload: #"{"sub":{"a":"b"}}"#, signature: parts[2]), .malformed),
            (Self.handMade(header: #"{"alg":"HS256"}"#, payload: #"{"sub":{"a":"b"}}"#, signature: parts[2]), .missingKeyID),
            (Self.handMade(header: #"{"alg":"HS256","kid":7}"#, payload: #"{"sub":{"a":"b"}}"#, signature: parts[2]), .missingKeyID),
            ([parts[0], parts[1], ""].joined(separator: "."), .invalidSignature),
            ([parts[0], parts[1], String(parts[2].reversed())].joined(separator: "."), .invalidSignature),
            ([parts[0], Self.segment(#"{"exp":1800000060,"sub":{"registered":"mallory@example.com"}}"#), parts[2]].joined(separator: "."), .invalidSignature),
            (good + ".", .malformed),
            (String(good.dropLast(good.count - 20)), .malformed),
            ("", .malformed),
            (String(repeating: "a", count: 9000) + ".b.c", .malformed),
            ("a b.c.d", .malformed),
            ("\u{1}.\u{2}.\u{3}", .malformed),
        ]
        for (token, code) in cases {
            do {
                _ = try await verifier.verify(token)
                Issue.record("accepted \(token.prefix(80))")
            } catch {
                #expect(error.code == code, "\(token.prefix(80)): \(error)")
                #expect(error.refusesToken)
                for part in token.split(separator: ".") where part.count > 3 {
                    #expect(!error.message.contains(part), "\(error.message) echoes the token")
                }
            }
        }
    }

    private static func decode(_ segment: String) -> String {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        return String(decoding: Data(base64Encoded: text) ?? Data(), as: UTF8.self)
    }
}
