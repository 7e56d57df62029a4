import Clearance
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceTestSupport
import ClearanceTesting
import ClearanceWire
import Foundation
import Testing

/// The cases the issue adds to the certification list, and the rest of the ID token rules,
/// against the hostile provider.
@Suite("Hostile OpenID provider")
struct HostileProviderTests {
    @Test("a discovery document naming another issuer is refused before anything else happens")
    func discoveryWithAnotherIssuer() async throws {
        let provider = try await HostileOpenIDProvider.start(behaviour { $0.discoveryIssuer = "https://id.attacker.example.com" })
        try await withCleanup {
            do throws(OpenIDError) {
                _ = try await OpenIDProvider.discover(issuer: provider.issuer)
                Issue.record("a discovery document with another issuer was accepted")
            } catch {
                #expect(error.code == .discoveryIssuerMismatch)
                #expect(error.message.contains("https://id.attacker.example.com"))
            }
            // Lazily too: no authorization URL, no token request, no key set.
            let lazy = try OpenIDProvider(issuer: provider.issuer)
            await #expect(throws: OpenIDError.self) { _ = try await lazy.sessionConfiguration(clientID: provider.clientID) }
            let counters = provider.counters
            #expect(counters.discovery == 2 && counters.authorize == 0 && counters.tokenRequests.isEmpty && counters.keySet == 0)
        } cleanup: {
            await provider.stop()
        }
    }

    @Test("an HS256 token signed with the provider's RSA public key is refused (HS256 not registered)")
    func hs256WithThePublicKey() async throws {
        let forged = behaviour { $0.signIn = HostileTokenRecipe(signature: .hmac(Data(TestSigningKeys.shared.publicKeyPEM(.rsa).utf8)), keyID: .named("rsa-1")) }
        try await withHarness(forged) { harness in
            try await harness.expectRefusedSignIn(.algorithmNotAllowed)
        }
    }

    @Test("with HS256 registered, the client secret is the key, never the provider's public key")
    func hs256WithTheClientSecret() async throws {
        let secret = "a-client-secret-of-more-than-32-bytes-0123456789"
        let forged = behaviour { $0.signIn = HostileTokenRecipe(signature: .hmac(Data(TestSigningKeys.shared.publicKeyPEM(.rsa).utf8)), keyID: .named("rsa-1")) }
        try await withHarness(forged, allowsHS256: true, clientSecret: secret) { harness in
            try await harness.expectRefusedSignIn(.badSignature)
        }
        let genuine = behaviour { $0.signIn = HostileTokenRecipe(signature: .hmac(Data(secret.utf8))) }
        try await withHarness(genuine, allowsHS256: true, clientSecret: secret) { harness in
            try await harness.signIn()
            #expect(harness.session.identity?.subject == "hostile-subject-1")
        }
        try await withHarness(genuine, allowsHS256: true, clientSecret: "too-short") { harness in
            try await harness.expectRefusedSignIn(.hmacSecretTooShort)
        }
    }

    @Test("an expired ID token is refused; one expired within the leeway is not")
    func expired() async throws {
        let now = Int(Date().timeIntervalSince1970)
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["exp"] = .number(String(now - 3_600)) } }) { harness in
            try await harness.expectRefusedSignIn(.expired)
        }
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["exp"] = .number(String(now - 20)) } }) { harness in
            try await harness.signIn()
            #expect(harness.session.isAuthenticated)
        }
    }

    @Test("iat in the future beyond the leeway is refused")
    func issuedInTheFuture() async throws {
        let future = Int(Date().timeIntervalSince1970) + 3_600
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["iat"] = .number(String(future)) } }) { harness in
            try await harness.expectRefusedSignIn(.issuedInFuture)
        }
    }

    @Test("azp naming another client is refused; several audiences need azp to be the client")
    func authorizedParty() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["azp"] = .string("another-client") } }) { harness in
            try await harness.expectRefusedSignIn(.authorizedPartyMismatch)
        }
        let severalWithoutAZP = behaviour { $0.signIn = HostileTokenRecipe { $0["aud"] = .array([.string("hostile-client"), .string("api")]) } }
        try await withHarness(severalWithoutAZP) { harness in
            try await harness.expectRefusedSignIn(.authorizedPartyMismatch)
        }
        let severalWithAZP = behaviour {
            $0.signIn = HostileTokenRecipe {
                $0["aud"] = .array([.string("hostile-client"), .string("api")])
                $0["azp"] = .string("hostile-client")
            }
        }
        try await withHarness(severalWithAZP) { harness in
            try await harness.signIn()
            #expect(harness.session.isAuthenticated)
        }
    }

    @Test("a refreshed ID token with another sub ends the session: signed out, store cleared, an event says why")
    func refreshWithAnotherSubject() async throws {
        try await withHarness { harness in
            try await harness.signIn()
            let events = harness.session.events
            harness.provider.behave { $0.refresh = HostileTokenRecipe { $0["sub"] = .string("hostile-subject-2") } }
            do throws(OAuth2Error) {
                try await harness.session.refresh()
                Issue.record("a refresh with another subject was accepted")
            } catch {
                #expect(error.code == .identityRefused)
                #expect((error.identityError as? OpenIDError)?.code == .subjectChanged)
            }
            #expect(!harness.session.isAuthenticated && harness.session.identity == nil)
            #expect(harness.store.current == nil)
            let ended = try await first(events) { if case .sessionEnded = $0 { true } else { false } }
            guard case .sessionEnded(let reason) = ended else { return }
            #expect((reason.identityError as? OpenIDError)?.code == .subjectChanged)
            #expect(ended.description == "session_ended(oauth2.identity_refused: openid.subject_changed)")
            // The rotated refresh token that came with it was revoked, not left valid.
            #expect(harness.provider.counters.revocations == 1)
            harness.expectNoTokenIn(harness.logs.text)
        }
    }

    @Test("every refused case has its own code (alg none and unregistered HS256 share the algorithm code)")
    func everyRefusalHasItsOwnCode() async throws {
        let pem = Data(TestSigningKeys.shared.publicKeyPEM(.rsa).utf8)
        let now = Int(Date().timeIntervalSince1970)
        let unidentified: [HostileOpenIDProvider.PublishedKey] = [.init(.rsa, includesKeyID: false), .init(.rotatedRSA, includesKeyID: false)]
        let cases: [(String, HostileTokenRecipe, [HostileOpenIDProvider.PublishedKey]?, OpenIDError.Code)] = [
            ("rp-id_token-sig-none", HostileTokenRecipe(signature: .none), nil, .algorithmNotAllowed),
            ("rp-id_token-bad-sig-rs256", HostileTokenRecipe(signature: .corrupted(.rsa)), nil, .badSignature),
            ("rp-id_token-issuer-mismatch", HostileTokenRecipe { $0["iss"] = .string("https://other.example.com") }, nil, .issuerMismatch),
            ("rp-id_token-aud", HostileTokenRecipe { $0["aud"] = .string("other") }, nil, .audienceMismatch),
            ("rp-id_token-iat", HostileTokenRecipe { $0["iat"] = nil }, nil, .issuedAtMissing),
            ("rp-id_token-sub", HostileTokenRecipe { $0["sub"] = nil }, nil, .subjectMissing),
            ("rp-nonce-invalid", HostileTokenRecipe { $0["nonce"] = .string("other") }, nil, .nonceMismatch),
            ("rp-id_token-kid-absent-multiple-jwks", HostileTokenRecipe(keyID: .absent), unidentified, .keyNotIdentified),
            ("hs256 with the public key", HostileTokenRecipe(signature: .hmac(pem), keyID: .named("rsa-1")), nil, .algorithmNotAllowed),
            ("expired", HostileTokenRecipe { $0["exp"] = .number(String(now - 3_600)) }, nil, .expired),
            ("azp of another client", HostileTokenRecipe { $0["azp"] = .string("other") }, nil, .authorizedPartyMismatch),
            ("issued in the future", HostileTokenRecipe { $0["iat"] = .number(String(now + 3_600)) }, nil, .issuedInFuture),
            ("unknown kid", HostileTokenRecipe(keyID: .named("unknown")), nil, .unknownKey),
        ]
        var observed: [String: OpenIDError.Code] = [:]
        for (name, recipe, keys, expected) in cases {
            let refused = behaviour {
                $0.signIn = recipe
                if let keys { $0.publishedKeys = keys }
            }
            try await withHarness(refused) { harness in
                observed[name] = try await harness.expectRefusedSignIn(expected)
            }
        }
        observed["refreshed with another sub"] = .subjectChanged
        observed["discovery with another issuer"] = .discoveryIssuerMismatch
        observed["userinfo with another sub"] = .userInfoSubjectMismatch
        #expect(observed.count == cases.count + 3)
        let shared: Set<String> = ["rp-id_token-sig-none", "hs256 with the public key"]
        let distinct = observed.filter { !shared.contains($0.key) }.map(\.value) + [.algorithmNotAllowed]
        #expect(Set(distinct).count == distinct.count, "\(observed)")
        #expect(Set(shared.map { observed[$0] }) == [.algorithmNotAllowed])
    }

    @Test("every attempt sends openid and a fresh nonce; prompt, max_age and login_hint when asked")
    func authorizationRequestParameters() async throws {
        try await withHarness { harness in
            try await harness.signIn()
            try await harness.signIn(prompt: "login", maxAge: .seconds(600), loginHint: "jane@example.com")
            let queries = harness.provider.counters.authorizeQueries
            #expect(queries.count == 2)
            let nonces = queries.compactMap { $0["nonce"] }
            #expect(nonces.count == 2 && Set(nonces).count == 2 && nonces.allSatisfy { $0.count == 43 })
            #expect(queries.allSatisfy { ($0["scope"] ?? "").split(separator: " ").first == "openid" })
            #expect(queries[0]["prompt"] == nil && queries[0]["max_age"] == nil && queries[0]["login_hint"] == nil)
            #expect(queries[1]["prompt"] == "login" && queries[1]["max_age"] == "600" && queries[1]["login_hint"] == "jane@example.com")
        }
    }

    @Test("max_age: auth_time must be present and recent enough")
    func maximumAuthenticationAge() async throws {
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["auth_time"] = nil } }) { harness in
            try await harness.expectRefusedSignIn(.authenticationTimeMissing, maxAge: .seconds(60))
            try await harness.signIn()  // without max_age, auth_time is not needed
        }
        let old = Int(Date().timeIntervalSince1970) - 3_600
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe { $0["auth_time"] = .number(String(old)) } }) { harness in
            try await harness.expectRefusedSignIn(.authenticationTooOld, maxAge: .seconds(600))
            try await harness.signIn(maxAge: .seconds(7_200))
            #expect(harness.session.isAuthenticated)
        }
    }

    @Test("an endpoint over plain http to another host is refused at discovery")
    func insecureEndpoint() async throws {
        let provider = try await HostileOpenIDProvider.start(behaviour { $0.discoveryOverrides = ["token_endpoint": .string("http://id.example.com/token")] })
        try await withCleanup {
            do throws(OpenIDError) {
                _ = try await OpenIDProvider.discover(issuer: provider.issuer)
                Issue.record("an insecure token endpoint was accepted")
            } catch {
                #expect(error.code == .insecureEndpoint)
            }
            let allowed = try await OpenIDProvider.discover(issuer: provider.issuer, transportSecurity: TransportSecurity(insecureHostsAllowed: ["id.example.com"]))
            #expect(allowed.cachedMetadata?.tokenEndpoint.absoluteString == "http://id.example.com/token")
        } cleanup: {
            await provider.stop()
        }
    }

    @Test("the revocation endpoint of the discovery document is used at sign-out, with the end-session URL")
    func signOutRevokesAndReturnsTheEndSessionURL() async throws {
        try await withHarness { harness in
            try await harness.signIn()
            let idToken = try #require(harness.session.identity?.idToken)
            let signOut = await harness.session.signOut(at: harness.openID, postLogoutRedirectURI: URL(string: "http://127.0.0.1/bye")!, state: "s-1")
            guard case .revoked = signOut.revocation else {
                Issue.record("expected a revocation, got \(signOut.revocation)")
                return
            }
            #expect(harness.provider.counters.revocations == 1)
            #expect(harness.store.current == nil && !harness.session.isAuthenticated)
            let url = try #require(signOut.endSession?.url)
            let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
            #expect(url.absoluteString.hasPrefix(harness.provider.issuer.absoluteString + "/logout?"))
            #expect(query.map(\.name) == ["id_token_hint", "client_id", "post_logout_redirect_uri", "state"])
            #expect(query.first { $0.name == "id_token_hint" }?.value == idToken)
            #expect(query.first { $0.name == "client_id" }?.value == harness.provider.clientID)
            #expect(query.first { $0.name == "post_logout_redirect_uri" }?.value == "http://127.0.0.1/bye")
            #expect(query.first { $0.name == "state" }?.value == "s-1")
            var dumped = ""
            dump(signOut, to: &dumped)
            for text in ["\(signOut)", String(reflecting: signOut), dumped, "\(try #require(signOut.endSession))"] {
                #expect(!text.contains(idToken) && !text.contains("eyJ"), "\(text)")
            }
        }
    }

    @Test("a refresh without an ID token keeps the identity; UserInfo signed as a JWT is refused clearly")
    func refreshWithoutIDTokenAndSignedUserInfo() async throws {
        try await withHarness(behaviour { $0.refresh = nil }) { harness in
            try await harness.signIn()
            let before = try #require(harness.session.identity)
            try await harness.session.refresh()
            #expect(harness.session.identity?.idToken == before.idToken)
            #expect(harness.store.current?.identity?.idToken == before.idToken)
            harness.provider.behave { $0.userInfoContentType = "application/jwt" }
            do throws(OpenIDError) {
                _ = try await harness.session.userInfo(from: harness.openID)
                Issue.record("a signed UserInfo answer was accepted")
            } catch {
                #expect(error.code == .userInfoSignedUnsupported)
            }
        }
    }

    @Test("the key set unreachable: a sign-in fails as unavailable; a refresh fails and keeps the session")
    func keySetUnavailable() async throws {
        try await withHarness(behaviour { $0.keySetFails = true }) { harness in
            try await harness.expectRefusedSignIn(.keySetUnavailable)
        }
        try await withHarness { harness in
            try await harness.signIn()
            harness.provider.behave {
                $0.keySetFails = true
                $0.refresh = HostileTokenRecipe(signature: .key(.rotatedRSA))
            }
            do throws(OAuth2Error) {
                try await harness.session.refresh()
                Issue.record("a refresh whose key could not be fetched was accepted")
            } catch {
                #expect(error.code == .identityUnavailable)
            }
            #expect(harness.session.isAuthenticated)
            #expect(harness.store.current?.identity?.subject == "hostile-subject-1")
        }
    }

    @Test("no token in any description, mirror or log of the identity, the stored session or the events")
    func nothingLeaks() async throws {
        try await withHarness { harness in
            let events = harness.session.events
            try await harness.signIn()
            try await harness.session.refresh()
            _ = try await harness.session.userInfo(from: harness.openID)
            let identity = try #require(harness.session.identity)
            let stored = try #require(harness.store.current)
            var seen: [String] = []
            for await event in events {
                seen.append("\(event)")
                if case .refreshed = event { break }
            }
            let texts = ["\(identity)", String(reflecting: identity), "\(stored)", String(reflecting: stored), "\(harness.session)",
                         "\(harness.session.state)", seen.joined(), harness.logs.text]
            for text in texts { harness.expectNoTokenIn(text) }
            var dumped = ""
            dump(identity, to: &dumped)
            harness.expectNoTokenIn(dumped)
        }
    }
}
