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
        #expect(try await Self.discoveryWithAnotherIssuer() == .discoveryIssuerMismatch)
    }

    /// Discovers a provider whose document names another issuer, checks nothing else happened,
    /// and returns the code of the refusal.
    static func discoveryWithAnotherIssuer() async throws -> OpenIDError.Code? {
        let provider = try await HostileOpenIDProvider.start(behaviour { $0.discoveryIssuer = "https://id.attacker.example.com" })
        return try await withCleanup {
            var observed: OpenIDError.Code?
            do throws(OpenIDError) {
                _ = try await OpenIDProvider.discover(issuer: provider.issuer)
                Issue.record("a discovery document with another issuer was accepted")
            } catch {
                observed = error.code
                #expect(error.message.contains("https://id.attacker.example.com"))
            }
            // Lazily too: no authorization URL, no token request, no key set.
            let lazy = try OpenIDProvider(issuer: provider.issuer)
            do throws(OpenIDError) {
                _ = try await lazy.sessionConfiguration(clientID: provider.clientID)
                Issue.record("a lazily discovered document with another issuer was accepted")
            } catch {
                #expect(error.code == .discoveryIssuerMismatch)
            }
            let counters = provider.counters
            #expect(counters.discovery == 2 && counters.authorize == 0 && counters.tokenRequests.isEmpty && counters.keySet == 0)
            return observed
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
        #expect(try await Self.refreshWithAnotherSubject(rotating: true) == .subjectChanged)
    }

    @Test("a refresh token the provider did not rotate is revoked too when another sub ends the session")
    func refreshWithAnotherSubjectWithoutRotation() async throws {
        #expect(try await Self.refreshWithAnotherSubject(rotating: false) == .subjectChanged)
    }

    /// Signs in, refreshes into an ID token with another `sub`, checks the session ended (signed
    /// out, store cleared, the event, no refresh token left valid at the provider), and returns
    /// the code of the refusal.
    static func refreshWithAnotherSubject(rotating: Bool) async throws -> OpenIDError.Code? {
        var observed: OpenIDError.Code?
        try await withHarness(behaviour { $0.rotatesRefreshTokens = rotating }) { harness in
            try await harness.signIn()
            let events = harness.session.events
            harness.provider.behave { $0.refresh = HostileTokenRecipe { $0["sub"] = .string("hostile-subject-2") } }
            do throws(OAuth2Error) {
                try await harness.session.refresh()
                Issue.record("a refresh with another subject was accepted")
            } catch {
                #expect(error.code == .identityRefused)
                observed = (error.identityError as? OpenIDError)?.code
            }
            #expect(!harness.session.isAuthenticated && harness.session.identity == nil)
            #expect(harness.store.current == nil)
            let ended = try await first(events) { if case .sessionEnded = $0 { true } else { false } }
            guard case .sessionEnded(let reason) = ended else { return }
            #expect((reason.identityError as? OpenIDError)?.code == .subjectChanged)
            #expect(ended.description == "session_ended(oauth2.identity_refused: openid.subject_changed)")
            // The refresh token nobody holds now (the rotated one, else the one used) was revoked.
            #expect(harness.provider.counters.revocations == 1)
            #expect(harness.provider.counters.liveRefreshTokens.isEmpty, "a refresh token was left valid with nobody holding it")
            harness.expectNoTokenIn(harness.logs.text)
        }
        return observed
    }

    /// Signs in and asks UserInfo, which names another subject; returns the code of the refusal.
    static func userInfoWithAnotherSubject() async throws -> OpenIDError.Code? {
        var observed: OpenIDError.Code?
        try await withHarness(behaviour { $0.userInfoSubject = "someone-else" }) { harness in
            try await harness.signIn()
            do throws(OpenIDError) {
                _ = try await harness.session.userInfo(from: harness.openID)
                Issue.record("UserInfo about another subject was accepted")
            } catch {
                observed = error.code
            }
            #expect(harness.session.isAuthenticated)
            harness.expectNoTokenIn(harness.logs.text)
        }
        return observed
    }

    @Test("every refused case has its own code (alg none, unregistered HS256 and an unlisted alg share the algorithm code)")
    func everyRefusalHasItsOwnCode() async throws {
        let pem = Data(TestSigningKeys.shared.publicKeyPEM(.rsa).utf8)
        let now = Int(Date().timeIntervalSince1970)
        let unidentified: [HostileOpenIDProvider.PublishedKey] = [.init(.rsa, includesKeyID: false), .init(.rotatedRSA, includesKeyID: false)]
        let cases: [(String, HostileTokenRecipe, (inout HostileOpenIDProvider.Behaviour) -> Void, OpenIDError.Code)] = [
            ("rp-id_token-sig-none", HostileTokenRecipe(signature: .none), { _ in }, .algorithmNotAllowed),
            ("rp-id_token-bad-sig-rs256", HostileTokenRecipe(signature: .corrupted(.rsa)), { _ in }, .badSignature),
            ("rp-id_token-issuer-mismatch", HostileTokenRecipe { $0["iss"] = .string("https://other.example.com") }, { _ in }, .issuerMismatch),
            ("rp-id_token-aud", HostileTokenRecipe { $0["aud"] = .string("other") }, { _ in }, .audienceMismatch),
            ("rp-id_token-iat", HostileTokenRecipe { $0["iat"] = nil }, { _ in }, .issuedAtMissing),
            ("rp-id_token-sub", HostileTokenRecipe { $0["sub"] = nil }, { _ in }, .subjectMissing),
            ("rp-nonce-invalid", HostileTokenRecipe { $0["nonce"] = .string("other") }, { _ in }, .nonceMismatch),
            ("rp-id_token-kid-absent-multiple-jwks", HostileTokenRecipe(keyID: .absent), { $0.publishedKeys = unidentified }, .keyNotIdentified),
            ("hs256 with the public key", HostileTokenRecipe(signature: .hmac(pem), keyID: .named("rsa-1")), { _ in }, .algorithmNotAllowed),
            ("an alg the discovery document does not list", HostileTokenRecipe(signature: .key(.ec)), { $0.advertisedAlgorithms = ["RS256"] }, .algorithmNotAllowed),
            ("expired", HostileTokenRecipe { $0["exp"] = .number(String(now - 3_600)) }, { _ in }, .expired),
            ("azp of another client", HostileTokenRecipe { $0["azp"] = .string("other") }, { _ in }, .authorizedPartyMismatch),
            ("issued in the future", HostileTokenRecipe { $0["iat"] = .number(String(now + 3_600)) }, { _ in }, .issuedInFuture),
            ("unknown kid", HostileTokenRecipe(keyID: .named("unknown")), { _ in }, .unknownKey),
            ("an EC kid with an RS256 header", HostileTokenRecipe(signature: .key(.rsa), keyID: .named("ec-1")), { _ in }, .keyAlgorithmMismatch),
            ("a crit header", HostileTokenRecipe(extraHeader: ["crit": .array([.string("exp")]), "exp": .number("1")]), { _ in }, .malformedIDToken),
        ]
        var observed: [String: OpenIDError.Code?] = [:]
        for (name, recipe, change, expected) in cases {
            let refused = behaviour {
                $0.signIn = recipe
                change(&$0)
            }
            try await withHarness(refused) { harness in
                observed[name] = try await harness.expectRefusedSignIn(expected)
            }
        }
        // Played here, not written down: each returns the code it observed.
        observed["refreshed with another sub"] = try await Self.refreshWithAnotherSubject(rotating: true)
        observed["discovery with another issuer"] = try await Self.discoveryWithAnotherIssuer()
        observed["userinfo with another sub"] = try await Self.userInfoWithAnotherSubject()
        #expect(observed.count == cases.count + 3)
        let codes = observed.compactMapValues { $0 }
        #expect(codes.count == observed.count, "a case gave no OpenID code: \(observed)")
        let shared: Set<String> = ["rp-id_token-sig-none", "hs256 with the public key", "an alg the discovery document does not list"]
        let distinct = codes.filter { !shared.contains($0.key) }.map(\.value) + [.algorithmNotAllowed]
        #expect(Set(distinct).count == distinct.count, "\(codes)")
        #expect(Set(shared.map { codes[$0] }) == [.algorithmNotAllowed])
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

    @Test("the key set unreachable: a sign-in fails as unavailable (its refresh token revoked)")
    func keySetUnavailableAtSignIn() async throws {
        try await withHarness(behaviour { $0.keySetFails = true }) { harness in
            try await harness.expectRefusedSignIn(.keySetUnavailable)
            #expect(harness.provider.counters.revocations == 1)
        }
    }

    @Test("the key set unreachable at a refresh that rotates the refresh token: nothing lost; the ID token verified at the next refresh")
    func keySetUnavailableAtRefresh() async throws {
        let clock = ManualClock()
        try await withHarness(clock: clock) { harness in
            try await harness.signIn()
            let first = try #require(harness.session.identity)
            let signedIn = try #require(harness.store.current?.token.refreshToken)
            harness.provider.behave {
                $0.keySetFails = true
                $0.refresh = HostileTokenRecipe(signature: .key(.rotatedRSA))
            }
            do throws(OAuth2Error) {
                try await harness.session.refresh()
                Issue.record("a refresh whose ID token could not be verified said nothing")
            } catch {
                #expect(error.code == .identityUnavailable)
                #expect((error.identityError as? OpenIDError)?.code == .keySetUnavailable)
            }
            // The rotated refresh token is saved (the one used is dead at the provider); the
            // identity is the one verified before; the new ID token waits, unverified.
            let stored = try #require(harness.store.current)
            let rotated = try #require(stored.token.refreshToken)
            #expect(rotated != signedIn && harness.provider.counters.liveRefreshTokens == [rotated])
            #expect(harness.session.isAuthenticated && harness.session.identity?.idToken == first.idToken)
            #expect(stored.identity?.idToken == first.idToken && stored.pendingIDToken != nil && stored.pendingIDToken != first.idToken)
            let pending = try #require(stored.pendingIDToken)
            // Requests go on with the new token.
            let credential = try await harness.session.currentCredential()
            #expect(credential == .accessToken(stored.token.accessToken, scheme: "Bearer", expiresAt: stored.token.expiresAt))

            // The keys are back (with the new one); the next refresh, with no ID token of its own,
            // verifies the pending one, with the rotated refresh token.
            clock.advance(by: .seconds(61))
            harness.provider.behave {
                $0.keySetFails = false
                $0.publishedKeys = [.init(.rsa), .init(.rotatedRSA), .init(.ec)]
                $0.refresh = nil
            }
            try await harness.session.refresh()
            #expect(harness.session.identity?.idToken == pending && harness.session.identity?.subject == "hostile-subject-1")
            #expect(harness.store.current?.identity?.idToken == pending && harness.store.current?.pendingIDToken == nil)
            #expect(harness.provider.counters.tokenRequests["refresh_token"] == 2)
            harness.expectNoTokenIn(harness.logs.text)
        }
    }

    @Test("an unknown kid at a refresh with the refetch held back (one a minute): not decided yet, the session kept")
    func unknownKeyAtRefreshWithTheRefetchHeldBack() async throws {
        let clock = ManualClock()
        try await withHarness(behaviour { $0.publishedKeys = [.init(.rsa)] }, clock: clock) { harness in
            try await harness.signIn()
            let first = try #require(harness.session.identity)
            // A sign-in with an unknown kid spends the refetch of this minute.
            harness.provider.behave { $0.signIn = HostileTokenRecipe(signature: .key(.rotatedRSA)) }
            try await harness.expectRefusedSignIn(.unknownKey)
            #expect(harness.provider.counters.keySet == 2)
            // The provider rotates; a refresh within the minute cannot fetch the set again.
            harness.provider.behave {
                $0.publishedKeys = [.init(.rsa), .init(.rotatedRSA)]
                $0.refresh = HostileTokenRecipe(signature: .key(.rotatedRSA))
            }
            try await Self.expectUndecidedRefresh(harness, keeping: first)
            #expect(harness.provider.counters.keySet == 2, "no refetch within the minute")
            clock.advance(by: .seconds(61))
            try await harness.session.refresh()
            #expect(harness.provider.counters.keySet == 3)
            #expect(harness.session.identity?.idToken != first.idToken && harness.store.current?.pendingIDToken == nil)
        }
    }

    @Test("an unknown kid at a refresh still missing after the refetch (a key set lagging behind a rotation): not decided yet, the session kept")
    func unknownKeyAtRefreshWithALaggingKeySet() async throws {
        let clock = ManualClock()
        try await withHarness(behaviour { $0.publishedKeys = [.init(.rsa)] }, clock: clock) { harness in
            try await harness.signIn()
            let first = try #require(harness.session.identity)
            harness.provider.behave { $0.refresh = HostileTokenRecipe(signature: .key(.rotatedRSA)) }
            try await Self.expectUndecidedRefresh(harness, keeping: first)
            #expect(harness.provider.counters.keySet == 2, "one refetch, which still lacked the key")
            clock.advance(by: .seconds(61))
            harness.provider.behave { $0.publishedKeys = [.init(.rsa), .init(.rotatedRSA)] }
            try await harness.session.refresh()
            #expect(harness.session.identity?.subject == "hostile-subject-1" && harness.session.identity?.idToken != first.idToken)
        }
    }

    /// A refresh whose ID token names a key the set lacks: `identity_unavailable` with
    /// `openid.unknown_key`, the session and the identity kept, the new tokens saved.
    static func expectUndecidedRefresh(_ harness: OpenIDHarness, keeping first: SessionIdentity, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        do throws(OAuth2Error) {
            try await harness.session.refresh()
            Issue.record("a refresh with an unknown key said nothing", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .identityUnavailable, sourceLocation: sourceLocation)
            #expect((error.identityError as? OpenIDError)?.code == .unknownKey, sourceLocation: sourceLocation)
        }
        let stored = try #require(harness.store.current, sourceLocation: sourceLocation)
        #expect(harness.session.isAuthenticated && harness.session.identity?.idToken == first.idToken, sourceLocation: sourceLocation)
        #expect(stored.identity?.idToken == first.idToken && stored.pendingIDToken != nil, sourceLocation: sourceLocation)
        #expect(stored.token.refreshToken.map { harness.provider.counters.liveRefreshTokens.contains($0) } == true, "the saved refresh token is the live one", sourceLocation: sourceLocation)
    }

    @Test("UserInfo and sign-out at another provider than the identity's: no access token, no ID token sent there")
    func anotherProvidersUserInfoAndEndSession() async throws {
        try await withHarness { harness in
            try await harness.signIn()
            let other = try await HostileOpenIDProvider.start()
            try await withCleanup {
                let otherOpenID = try await OpenIDProvider.discover(issuer: other.issuer)
                do throws(OpenIDError) {
                    _ = try await harness.session.userInfo(from: otherOpenID)
                    Issue.record("UserInfo was asked of another provider")
                } catch {
                    #expect(error.code == .providerMismatch)
                    #expect(error.message.contains(harness.provider.issuer.absoluteString) && error.message.contains(other.issuer.absoluteString))
                }
                let signOut = await harness.session.signOut(at: otherOpenID)
                #expect(signOut.endSession == nil, "an end-session URL carrying this ID token to another provider")
                #expect(!harness.session.isAuthenticated && harness.store.current == nil, "signed out here all the same")
                #expect(harness.provider.counters.revocations == 1)
                #expect(other.counters.requests == ["/.well-known/openid-configuration"], "only the discovery of the test reached the other provider")
            } cleanup: {
                await other.stop()
            }
        }
    }

    @Test("signing out at a provider not discovered yet signs out here first, then fetches the discovery document")
    func signOutLocallyFirst() async throws {
        try await withHarness { harness in
            try await harness.signIn()
            let lazy = try OpenIDProvider(issuer: harness.provider.issuer)
            let before = harness.provider.counters.requests.count
            let signOut = await harness.session.signOut(at: lazy)
            #expect(Array(harness.provider.counters.requests.dropFirst(before)) == ["/revoke", "/.well-known/openid-configuration"])
            #expect(signOut.endSession != nil)
        }
    }

    @Test("a code-flow sign-in without the nonce context is refused (misconfigured); a token with a nonce none sent is a replay")
    func signInWithoutAnAuthenticationRequest() async throws {
        try await withHarness { harness in
            // A plain OAuth2 code flow sends no nonce: its ID token cannot be tied to the sign-in.
            let plain = AuthorizationCodeFlow(receiver: harness.listener, timeout: .seconds(20)) { try await Browser.follow($0) }
            try await Self.expectRefusal(.authenticationRequestMissing, of: plain, harness)
            // A grant that sends no authentication request (password, device): a nonce in its ID
            // token answers another sign-in.
            let replayed = try await harness.provider.idToken(HostileTokenRecipe(), nonce: "a-nonce-of-another-sign-in")
            let withNonce = CannedGrant(grantName: "password", response: TokenResponse(accessToken: "canned-access", refreshToken: "canned-refresh", idToken: replayed))
            try await Self.expectRefusal(.nonceMismatch, of: withNonce, harness)
            #expect(harness.provider.counters.revoked.contains("canned-refresh"), "the refused sign-in's refresh token was revoked")
            // Its ID token without a nonce is verified and kept.
            let genuine = try await harness.provider.idToken(HostileTokenRecipe())
            try await harness.session.signIn(with: CannedGrant(grantName: "password", response: TokenResponse(accessToken: "canned-access-2", idToken: genuine)))
            #expect(harness.session.identity?.idToken == genuine)
        }
    }

    @Test("a grant without an ID token (client credentials) signs in with no identity; the authorization code grant needs one")
    func grantsWithoutAnIDToken() async throws {
        try await withHarness(behaviour { $0.signIn = nil }) { harness in
            try await harness.expectRefusedSignIn(.idTokenMissing)
            try await harness.session.signIn(with: CannedGrant(grantName: "client_credentials", response: TokenResponse(accessToken: "canned-client-access")))
            #expect(harness.session.isAuthenticated && harness.session.identity == nil && harness.store.current?.identity == nil)
        }
    }

    /// Signs in with `grant`, expecting the refusal `code`, nothing stored.
    static func expectRefusal(_ code: OpenIDError.Code, of grant: some OAuth2Grant, _ harness: OpenIDHarness, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        do throws(OAuth2Error) {
            try await harness.session.signIn(with: grant)
            Issue.record("the sign-in was accepted; expected openid.\(code.rawValue)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == .identityRefused, sourceLocation: sourceLocation)
            #expect((error.identityError as? OpenIDError)?.code == code, "got \(error)", sourceLocation: sourceLocation)
        }
        #expect(harness.store.current == nil && !harness.session.isAuthenticated, sourceLocation: sourceLocation)
    }

    @Test("every algorithm the documentation claims verifies: PS256, ES384, ES512, EdDSA signed in; their corrupted signatures refused")
    func everyClaimedAlgorithm() async throws {
        let keys: [TestKey] = [.rsa, .ec, .pss, .ec384, .ec521, .ed25519]
        let all = behaviour {
            $0.publishedKeys = keys.map { .init($0) }
            $0.advertisedAlgorithms = keys.map(\.algorithm)
        }
        for key in keys {
            try await withHarness(all) { harness in
                harness.provider.behave { $0.signIn = HostileTokenRecipe(signature: .corrupted(key)) }
                try await harness.expectRefusedSignIn(.badSignature)
                harness.provider.behave { $0.signIn = HostileTokenRecipe(signature: .key(key)) }
                try await harness.signIn()
                #expect(harness.session.identity?.subject == "hostile-subject-1", "\(key.algorithm)")
            }
        }
    }

    @Test("a kid naming a key of the set that does not fit the header's alg is refused, without a refetch")
    func keyAlgorithmMismatch() async throws {
        // An RSA key published for RS256, named by a PS256 token signed with it (PSS padding).
        let pss = behaviour {
            $0.advertisedAlgorithms = ["RS256", "PS256"]
            $0.signIn = HostileTokenRecipe(algorithm: "PS256", signature: .key(.rsa))
        }
        try await withHarness(pss) { harness in
            try await harness.expectRefusedSignIn(.keyAlgorithmMismatch)
            #expect(harness.provider.counters.keySet == 1)
        }
        // An EC key named by an RS256 token.
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe(signature: .key(.rsa), keyID: .named("ec-1")) }) { harness in
            try await harness.expectRefusedSignIn(.keyAlgorithmMismatch)
        }
    }

    @Test("a correctly signed token whose alg the discovery document does not list is refused; so is a crit header")
    func unlistedAlgorithmAndCritHeader() async throws {
        try await withHarness(behaviour { $0.advertisedAlgorithms = ["RS256"]; $0.signIn = HostileTokenRecipe(signature: .key(.ec)) }) { harness in
            try await harness.expectRefusedSignIn(.algorithmNotAllowed)
        }
        try await withHarness(behaviour { $0.signIn = HostileTokenRecipe(extraHeader: ["crit": .array([.string("exp")]), "exp": .number("1")]) }) { harness in
            try await harness.expectRefusedSignIn(.malformedIDToken)
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
