import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// Customer tokens against PyJWT (pinned in Tests/Interop/requirements.txt, run through
/// `Tests/Interop/pyjwt_customer_tokens.py`), both ways: tokens minted here verified by PyJWT,
/// and PyJWT's good and bad tokens through `CustomerTokenVerifier`. A missing PyJWT fails.
@Suite("Customer tokens: PyJWT interop", .timeLimit(.minutes(2)))
struct CustomerTokenInteropTests {
    static let secret = "bloomreach-private-key-secret-0123456789"
    static let customer = ["registered": "jane@example.com", "cookie": "c-42", "email_id": "zoë@exämple.com"]

    /// PyJWT's answer to `request` in `mode`.
    static func pyjwt(_ mode: String, _ request: [String: Any]) async throws -> [String: Any] {
        let output = try await PythonPeer.run("pyjwt_customer_tokens.py", [mode], input: try JSONSerialization.data(withJSONObject: request))
        guard output.status == 0, let answer = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any] else {
            throw ChildProcess.Failure("pyjwt_customer_tokens.py \(mode) exited \(output.status): \(output.stderr) \(PythonPeer.installHint)")
        }
        #expect(answer["pyjwt"] as? String == "2.15.1")
        return answer
    }

    @Test func tokensMintedHereAreVerifiedByPyJWT() async throws {
        let minter = await CustomerTokenMinter(key: try CustomerTokenKey(id: "private-key-1", secret: Self.secret))
        let other = await CustomerTokenMinter(key: try CustomerTokenKey(id: "private-key-1", secret: Self.secret + "-other"))
        let minted = [
            try await minter.mint(customerIDs: Self.customer, ttl: 600),
            try await minter.mint(customerIDs: ["registered": "john@example.com"], expiresAt: nil),
            try await other.mint(customerIDs: Self.customer, ttl: 600),
            try await minter.mint(customerIDs: Self.customer, expiresAt: Date().addingTimeInterval(-60)),
        ]
        let answer = try await Self.pyjwt("verify", ["secret": Self.secret, "kid": "private-key-1", "tokens": minted])
        let results = try #require(answer["results"] as? [[String: Any]])
        #expect(results.count == 4)

        #expect(results[0]["ok"] as? Bool == true, "\(results[0])")
        let header = results[0]["header"] as? [String: String]
        #expect(header == ["alg": "HS256", "typ": "JWT", "kid": "private-key-1"])
        let claims = results[0]["claims"] as? [String: Any]
        #expect(claims?["sub"] as? [String: String] == Self.customer)
        let exp = try #require(claims?["exp"] as? Int)
        #expect(abs(Double(exp) - Date().addingTimeInterval(600).timeIntervalSince1970) < 30)

        #expect(results[1]["ok"] as? Bool == true && (results[1]["claims"] as? [String: Any])?["exp"] == nil, "\(results[1])")
        #expect((results[2]["error"] as? String)?.hasPrefix("InvalidSignatureError") == true, "\(results[2])")
        #expect((results[3]["error"] as? String)?.hasPrefix("ExpiredSignatureError") == true, "\(results[3])")
    }

    @Test func pyJWTTokensGoodAndBadThroughTheVerifier() async throws {
        let now = Date().timeIntervalSince1970.rounded(.down)
        let answer = try await Self.pyjwt("mint", ["secret": Self.secret, "kid": "private-key-1", "customer": Self.customer, "now": now])
        let tokens = try #require(answer["tokens"] as? [String: String])
        let verifier = try await CustomerTokenVerifier(
            keys: [try CustomerTokenKey(id: "private-key-1", secret: Self.secret)], leeway: 30,
            now: { Date(timeIntervalSince1970: now) })

        let expected: [String: CustomerTokenError.Code?] = [
            "good": nil, "good_without_exp": nil, "expired_within_leeway": nil,
            "alg_none": .algorithmNone, "hs384": .unsupportedAlgorithm, "rs256": .unsupportedAlgorithm,
            "wrong_kid": .unknownKeyID, "no_kid": .missingKeyID,
            "expired": .expired, "not_yet_valid": .notYetValid,
            "wrong_secret": .invalidSignature, "tampered_payload": .invalidSignature, "tampered_signature": .invalidSignature,
            "sub_string": .invalidClaims, "sub_missing": .invalidClaims, "sub_empty": .invalidClaims, "exp_string": .invalidClaims,
            "crit_header": .malformed, "two_segments": .malformed, "four_segments": .malformed, "not_base64": .malformed,
            "header_not_json": .malformed, "payload_not_object": .malformed, "empty": .malformed,
        ]
        #expect(Set(tokens.keys) == Set(expected.keys), "PyJWT minted \(tokens.keys.sorted())")
        for (name, code) in expected.sorted(by: { $0.key < $1.key }) {
            let token = try #require(tokens[name])
            do {
                let verified = try await verifier.verify(token)
                #expect(code == nil, "\(name) was accepted")
                #expect(verified.customerIDs == Self.customer && verified.keyID == "private-key-1", "\(name)")
                #expect(verified.expiresAt == (name == "good_without_exp" ? nil : Date(timeIntervalSince1970: name == "good" ? now + 600 : now - 10)), "\(name)")
            } catch {
                #expect(error.code == code, "\(name): \(error)")
                for part in token.split(separator: ".") where part.count > 8 {
                    #expect(!error.message.contains(part), "\(name): the message echoes the token")
                }
            }
        }
    }
}
