import Clearance
import ClearanceOAuth2
import ClearanceWire
import Foundation
import JWTKit

/// Verifies ID tokens for one client of one provider (OpenID Connect Core §3.1.3.7, §12.2;
/// go-oidc's `IDTokenVerifier`), and is the `IdentityVerifier` an `OAuth2Session` calls for
/// every token response:
///
/// 1. **Shape**: a compact JWS, at most 64 KiB, no `crit` header.
/// 2. **Algorithm**: listed in the provider's `id_token_signing_alg_values_supported`, never
///    `none`; an RS/PS/ES/EdDSA algorithm verified with a key of the provider's key set, or
///    HS256 only when ``Configuration/hs256ClientSecret`` says the client was registered for
///    it (the client secret is the key; a key of the set never is).
/// 3. **Key**: the set's key with the token's `kid`, of the type (and curve, and `alg` when the
///    key names one) the token's algorithm needs, else refused; without a `kid`, the one key
///    that fits, or none. An unknown `kid` fetches the set again once (at most once a minute),
///    then is refused (at a refresh: not decided yet, the session kept).
/// 4. **Signature**, by jwt-kit.
/// 5. **Claims**: `iss` is the issuer; `aud` contains the client id; with several audiences (or
///    whenever present) `azp` is the client id; `exp` is in the future and `iat` present and
///    not in the future, within ``Configuration/leeway``; `nonce` is the one sent (absent when
///    none was); `sub` is
///    present; with `max_age`, `auth_time` is recent enough.
/// 6. **At refresh**: the same `iss` and `sub` as the session's first ID token, and no other
///    `nonce`; no new ID token keeps the current one.
///
/// Each failed check throws its own ``OpenIDError`` case; the token never appears in one. Its
/// `description`, `debugDescription` and mirror show the issuer, the client id, whether HS256 is
/// allowed and the leeway: never the client secret.
public struct IDTokenVerifier: IdentityVerifier, SecretRedacting {
    /// What the verifier checks the token against, besides the provider. Holds the client secret
    /// when HS256 is allowed: its text forms never show it.
    public struct Configuration: Sendable, SecretRedacting {
        /// The client id the token must be for.
        public var clientID: String
        /// The client secret, when the client was registered for HS256-signed ID tokens: HS256
        /// is then verified with it. nil (the default) refuses HS256.
        public var hs256ClientSecret: String?
        /// The clock skew allowed on `exp`, `iat` and `auth_time`. Default 60 s.
        public var leeway: Duration
        /// The client was registered for HS256 but the secret was not given (a restored session
        /// stored without it): HS256 is refused with ``OpenIDError/hs256SecretMissing``.
        var allowsHS256WithoutSecret = false

        public init(clientID: String, hs256ClientSecret: String? = nil, leeway: Duration = .seconds(60)) {
            self.clientID = clientID
            self.hs256ClientSecret = hs256ClientSecret
            self.leeway = leeway
        }

        /// The client id, whether HS256 is allowed (never the secret) and the leeway.
        public var description: String { "IDTokenVerifier.Configuration(\(shown))" }

        /// What the text forms show.
        var shown: String { "client: \(clientID), HS256: \(hs256ClientSecret == nil ? "refused" : "allowed"), leeway: \(leeway)" }
    }

    /// The longest ID token accepted, in bytes.
    public static let maximumTokenLength = 64 * 1024

    /// The provider whose tokens are verified.
    public let provider: OpenIDProvider
    /// The client and the tolerances.
    public let configuration: Configuration

    /// The provider state the session restored from its store (its own copy), if it did.
    private let restoredProvider = Locked<OpenIDProvider?>(nil)

    public init(provider: OpenIDProvider, configuration: Configuration) {
        self.provider = provider
        self.configuration = configuration
    }

    /// The issuer, the client id, whether HS256 is allowed and the leeway: never the client secret.
    public var description: String {
        "IDTokenVerifier(issuer: \(provider.issuerIdentifier), \(configuration.shown))"
    }

    /// Verifies `idToken`, the answer to an authentication request.
    ///
    /// - Parameters:
    ///   - idToken: The ID token, a compact JWS.
    ///   - nonce: The nonce the authorization request sent; nil when none was: a token that
    ///     carries a `nonce` then answers another request and is refused.
    ///   - maxAge: The `max_age` the authorization request sent, if any.
    /// - Throws: The ``OpenIDError`` of the first check that fails.
    public func verify(_ idToken: String, nonce: String? = nil, maxAge: Duration? = nil) async throws(OpenIDError) -> IDToken {
        try await verify(idToken, nonce: nonce, checksNonce: true, maxAge: maxAge)
    }

    /// Verifies `idToken`; its `nonce` is checked against `nonce` only when `checksNonce` (a
    /// refresh checks it against the session's first ID token instead).
    func verify(_ idToken: String, nonce: String?, checksNonce: Bool, maxAge: Duration?) async throws(OpenIDError) -> IDToken {
        let jwt: CompactJWT
        do {
            jwt = try CompactJWT(idToken, maximumLength: Self.maximumTokenLength)
        } catch {
            throw .malformedIDToken(reason: error.description)
        }
        if jwt.header["crit"] != nil { throw .malformedIDToken(reason: "its header has a crit member, which is not supported") }
        if let kid = jwt.header["kid"], kid.stringValue == nil { throw .malformedIDToken(reason: "its kid is not a string") }
        guard let algorithm = jwt.algorithm else { throw .malformedIDToken(reason: "its header has no alg") }
        let metadata = try await activeProvider.metadata()
        guard algorithm != "none", metadata.idTokenSigningAlgorithms.contains(algorithm) else { throw .algorithmNotAllowed(algorithm: algorithm) }
        if algorithm == "HS256" {
            try await verifyHS256(idToken)
        } else if ProviderKey.asymmetricAlgorithms.contains(algorithm) {
            try await verifyWithProviderKey(idToken, algorithm: algorithm, keyID: jwt.keyID)
        } else {
            throw .algorithmNotAllowed(algorithm: algorithm)
        }
        let token = IDToken(claims: jwt.payload)
        try checkClaims(of: token, issuer: metadata.issuer, nonce: nonce, checksNonce: checksNonce, maxAge: maxAge)
        return token
    }

    // MARK: - Signature

    private func verifyHS256(_ idToken: String) async throws(OpenIDError) {
        // Never a key of the set: a provider's public key used as an HMAC secret is the classic forgery.
        guard let secret = configuration.hs256ClientSecret else {
            throw configuration.allowsHS256WithoutSecret ? .hs256SecretMissing : .algorithmNotAllowed(algorithm: "HS256")
        }
        guard secret.utf8.count >= 32 else { throw .hmacSecretTooShort }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Data(secret.utf8)), digestAlgorithm: .sha256)
        try await verifySignature(idToken, with: keys)
    }

    private func verifyWithProviderKey(_ idToken: String, algorithm: String, keyID: String?) async throws(OpenIDError) {
        var snapshot = try await activeProvider.keys()
        var choice = snapshot.keys.choose(algorithm: algorithm, keyID: keyID)
        if case .unknown = choice, let refetched = try await activeProvider.keysAfterUnknownKey(seen: snapshot) {
            snapshot = refetched
            choice = refetched.keys.choose(algorithm: algorithm, keyID: keyID)
        }
        switch choice {
        case .unknown:
            throw .unknownKey(keyID: keyID)
        case .mismatched:
            throw .keyAlgorithmMismatch(keyID: keyID ?? "", algorithm: algorithm)
        case .ambiguous(let candidates):
            throw .keyNotIdentified(candidates: candidates)
        case .key(let key):
            let keys: JWTKeyCollection
            do {
                keys = try await key.keyCollection(for: algorithm)
            } catch {
                throw .badSignature
            }
            try await verifySignature(idToken, with: keys)
        }
    }

    private func verifySignature(_ idToken: String, with keys: JWTKeyCollection) async throws(OpenIDError) {
        do {
            _ = try await keys.verify(idToken, as: SignatureOnlyPayload.self)
        } catch {
            throw .badSignature
        }
    }

    // MARK: - Claims

    private func checkClaims(of token: IDToken, issuer: String, nonce: String?, checksNonce: Bool, maxAge: Duration?) throws(OpenIDError) {
        let clientID = configuration.clientID
        let now = activeProvider.clock.now
        let leeway = Self.seconds(configuration.leeway)
        guard token.claims["iss"]?.stringValue == issuer else {
            throw .issuerMismatch(expected: issuer, found: token.claims["iss"]?.scalarText)
        }
        let audience = token.audience
        guard audience.contains(clientID) else { throw .audienceMismatch(clientID: clientID) }
        if audience.count > 1 || token.claims["azp"] != nil {
            guard token.authorizedParty == clientID else {
                throw .authorizedPartyMismatch(clientID: clientID, found: token.claims["azp"]?.scalarText)
            }
        }
        guard let expiresAt = token.claims["exp"]?.numericDate, now < expiresAt.addingTimeInterval(leeway) else {
            throw .expired(at: token.claims["exp"]?.numericDate)
        }
        guard let issuedAt = token.claims["iat"]?.numericDate else { throw .issuedAtMissing }
        guard issuedAt <= now.addingTimeInterval(leeway) else { throw .issuedInFuture(at: issuedAt) }
        if checksNonce {
            if let nonce {
                guard let echoed = token.nonce, ConstantTime.equals(echoed, nonce) else { throw .nonceMismatch }
            } else if token.claims["nonce"] != nil {
                // No nonce was sent: a token carrying one answers another sign-in (a replay).
                throw .nonceMismatch
            }
        }
        guard let subject = token.claims["sub"]?.stringValue, (1...255).contains(subject.utf8.count), subject.utf8.allSatisfy({ $0 < 0x80 }) else {
            throw .subjectMissing
        }
        if let maxAge {
            guard let authenticatedAt = token.authenticatedAt else { throw .authenticationTimeMissing }
            guard authenticatedAt.addingTimeInterval(Self.seconds(maxAge) + leeway) >= now else { throw .authenticationTooOld(at: authenticatedAt) }
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    // MARK: - IdentityVerifier

    /// Verifies the ID token of a sign-in or a refresh (see the type's documentation) and
    /// returns the identity to keep, with the provider's documents to store with it.
    ///
    /// - **Sign-in with the authorization code grant** needs an ID token, and the
    ///   `AuthenticationRequestContext` its grant set (``OpenIDAuthorizationCodeFlow`` does):
    ///   without one, no nonce was sent and the sign-in is refused
    ///   (``OpenIDError/authenticationRequestMissing``). A grant of your own that exchanges a code
    ///   sets `TokenResponse.authenticationRequest` with the nonce it sent.
    /// - **Sign-in with another grant** (password, device, client credentials, an extension
    ///   grant) verifies the ID token when there is one, which must then carry no `nonce` (none
    ///   was sent); without one the session signs in with no identity.
    /// - **At a refresh**, a key the set lacks even after fetching it again (or with the refetch
    ///   held back for a minute) may be a set that lags behind a rotation: the identity cannot be
    ///   decided yet (`OAuth2Error.identityUnavailable`, the session kept). Every other
    ///   failed check is a refusal that ends the session.
    public func verifyIdentity(in response: TokenResponse, for check: IdentityCheck) async throws(OAuth2Error) -> SessionIdentity? {
        do throws(OpenIDError) {
            switch check {
            case .signIn(let grant):
                return try await signInIdentity(in: response, grant: grant)
            case .refresh(let current):
                return try await refreshedIdentity(in: response, current: current)
            }
        } catch {
            if case .refresh = check, error.code == .unknownKey { throw .identityUnavailable(error) }
            throw error.oauth2Error
        }
    }

    private func signInIdentity(in response: TokenResponse, grant: String) async throws(OpenIDError) -> SessionIdentity? {
        let context = response.authenticationRequest
        let answersAuthenticationRequest = grant == "authorization_code" || context != nil
        guard let idToken = response.idToken else {
            if answersAuthenticationRequest { throw .idTokenMissing }
            return nil
        }
        if answersAuthenticationRequest && context == nil { throw .authenticationRequestMissing }
        let token = try await verify(idToken, nonce: context?.nonce, checksNonce: true, maxAge: context?.maxAge)
        return SessionIdentity(idToken: idToken, claims: token.claims, provider: storedState)
    }

    private func refreshedIdentity(in response: TokenResponse, current: SessionIdentity?) async throws(OpenIDError) -> SessionIdentity? {
        guard let idToken = response.idToken else {
            return current.map { SessionIdentity(idToken: $0.idToken, claims: $0.claims, provider: storedState) }
        }
        let token = try await verify(idToken, nonce: nil, checksNonce: false, maxAge: nil)
        if let current {
            // Core §12.2: the same person at the same provider; a nonce, if any, the first one.
            guard token.issuer == current.issuer, token.subject == current.subject else { throw .subjectChanged }
            if let nonce = token.nonce, nonce != current.claims["nonce"]?.stringValue { throw .nonceMismatch }
        }
        return SessionIdentity(idToken: idToken, claims: token.claims, provider: storedState)
    }

    /// Takes back the provider's documents stored with the session, when the identity is this
    /// provider's, into a copy of the provider that only this verifier (this session) uses: a
    /// session stored for another issuer lends it nothing, and no session's store changes what
    /// another session sharing ``provider`` sees.
    public func restore(_ identity: SessionIdentity) async {
        guard identity.issuer == provider.issuerIdentifier, let stored = identity.provider else { return }
        // The session's own copy: what one session's store holds never changes what the other
        // sessions sharing the provider see (their UserInfo endpoint, their keys).
        let own = provider.sessionCopy()
        own.restore(provider.storedState)
        own.restore(stored)
        restoredProvider.withLock { $0 = own }
    }

    /// The issuer whose ID tokens it verifies (recorded with the stored session).
    public var issuerIdentifier: String? { provider.issuerIdentifier }

    /// The provider state verification uses: the session's own, once it restored one, else the
    /// shared ``provider``.
    var activeProvider: OpenIDProvider { restoredProvider.withLock { $0 } ?? provider }

    /// What is stored with the session (`SessionIdentity.provider`): the provider's documents
    /// (``OpenIDProvider/storedState``) and, under `verifier`, whether HS256 is allowed and the
    /// leeway, so ``init(restoring:clientID:allowsHS256:transport:transportSecurity:logger:)`` verifies
    /// as this verifier did.
    public var storedState: JSONValue {
        var object = activeProvider.storedState.objectValue ?? [:]
        object["verifier"] = .object([
            "hs256_client_secret": .bool(configuration.hs256ClientSecret != nil || configuration.allowsHS256WithoutSecret),
            "leeway_seconds": .number(String(Int64(Self.seconds(configuration.leeway)))),
        ])
        return .object(object)
    }
}
