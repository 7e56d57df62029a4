import Clearance
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceTestSupport
import ClearanceWire
import Foundation
import Testing

/// The OpenID Foundation's RP certification cases that apply to a native code-flow client,
/// played against the hostile provider: each refused case with its own code and nothing
/// stored, each accepted case signed in.
@Suite("OpenID RP certification cases")
struct RPCertificationTests {
    @Test("rp-id_token-sig-none: alg none is refused, even when the provider lists it")
    func signatureNone() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe(signature: .none) }) { harness in
            try await harness.expectRefusedSignIn(.algorithmNotAllowed)
        }
    }

    @Test("rp-id_token-bad-sig-rs256: an RS256 signature that does not verify")
    func badSignatureRS256() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe(signature: .corrupted(.rsa)) }) { harness in
            try await harness.expectRefusedSignIn(.badSignature)
        }
    }

    @Test("rp-id_token-bad-sig-es256: an ES256 signature that does not verify")
    func badSignatureES256() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe(signature: .corrupted(.ec)) }) { harness in
            try await harness.expectRefusedSignIn(.badSignature)
        }
    }

    @Test("rp-id_token-issuer-mismatch: iss is not the issuer")
    func issuerMismatch() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["iss"] = .string("https://attacker.example.com") } }) { harness in
            try await harness.expectRefusedSignIn(.issuerMismatch)
        }
    }

    @Test("rp-id_token-aud: aud does not contain the client id")
    func audience() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["aud"] = .array([.string("another-client")]) } }) { harness in
            try await harness.expectRefusedSignIn(.audienceMismatch)
        }
    }

    @Test("rp-id_token-iat: an ID token without iat")
    func issuedAtMissing() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["iat"] = nil } }) { harness in
            try await harness.expectRefusedSignIn(.issuedAtMissing)
        }
    }

    @Test("rp-id_token-sub: an ID token without sub")
    func subjectMissing() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["sub"] = nil } }) { harness in
            try await harness.expectRefusedSignIn(.subjectMissing)
        }
    }

    @Test("rp-nonce-invalid: the nonce is not this sign-in's")
    func nonceInvalid() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["nonce"] = .string("a-nonce-from-another-sign-in") } }) { harness in
            try await harness.expectRefusedSignIn(.nonceMismatch)
        }
    }

    @Test("rp-id_token-kid-absent-single-jwks: no kid, one key in the set: accepted")
    func keyIDAbsentSingleKey() async throws {
        let single = behaviour {
            $0.publishedKeys = [.init(.rsa, includesKeyID: false)]
            $0.signIn = HostileTokenRecipe(keyID: .absent)
        }
        try await withHarness(single) { harness in
            try await harness.signIn()
            #expect(harness.session.identity?.subject == "hostile-subject-1")
            #expect(harness.store.current?.identity?.subject == "hostile-subject-1")
        }
    }

    @Test("rp-id_token-kid-absent-single-jwks: no kid, one key that fits among keys of other types: accepted")
    func keyIDAbsentOneFittingKey() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe(signature: .key(.ec), keyID: .absent) }) { harness in
            try await harness.signIn()
            #expect(harness.session.isAuthenticated)
        }
    }

    @Test("rp-id_token-kid-absent-multiple-jwks: no kid, several keys that fit: refused")
    func keyIDAbsentMultipleKeys() async throws {
        let multiple = behaviour {
            $0.publishedKeys = [.init(.rsa, includesKeyID: false), .init(.rotatedRSA, includesKeyID: false)]
            $0.signIn = HostileTokenRecipe(keyID: .absent)
        }
        try await withHarness(multiple) { harness in
            try await harness.expectRefusedSignIn(.keyNotIdentified)
            #expect(harness.provider.counters.keySet == 1, "an ambiguous key is refused without fetching the set again")
        }
    }

    @Test("rp-key-rotation-op-sign-key: the provider signs with a new key: accepted after one key set refetch")
    func keyRotation() async throws {
        try await withHarness(behaviour { $0.publishedKeys = [.init(.rsa)] }) { harness in
            try await harness.signIn()
            #expect(harness.provider.counters.keySet == 1)
            harness.provider.behave {
                $0.publishedKeys = [.init(.rotatedRSA)]
                $0.signIn = HostileTokenRecipe(signature: .key(.rotatedRSA))
                $0.refresh = HostileTokenRecipe(signature: .key(.rotatedRSA))
            }
            try await harness.signIn()
            #expect(harness.provider.counters.keySet == 2, "one refetch for the unknown kid")
            #expect(harness.session.identity?.subject == "hostile-subject-1")
            // The new key is known now: a refresh signed with it needs no further fetch.
            try await harness.session.refresh()
            #expect(harness.provider.counters.keySet == 2)
            #expect(harness.store.current?.identity?.idToken == harness.session.identity?.idToken)
        }
    }

    @Test("rp-userinfo-bad-sub-claim: UserInfo about another subject is refused, the session kept")
    func userInfoBadSubject() async throws {
        #expect(try await HostileProviderTests.userInfoWithAnotherSubject() == .userInfoSubjectMismatch)
    }

    @Test("rp-userinfo-bearer-header: UserInfo is asked with the access token as Authorization: Bearer")
    func userInfoBearerHeader() async throws {
        try await withHarness { harness in
            try await harness.signIn()
            let userInfo = try await harness.session.userInfo(from: harness.openID)
            #expect(userInfo.subject == "hostile-subject-1")
            #expect(userInfo.email == "hostile@example.com")
            let accessToken = try #require(harness.store.current?.token.accessToken)
            #expect(harness.provider.counters.userInfoAuthorizations == ["Bearer \(accessToken)"])
        }
    }
}
