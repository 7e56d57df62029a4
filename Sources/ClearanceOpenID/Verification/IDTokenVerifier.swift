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
/// 3. **Key**: the set's key with the token's `kid`; without a `kid`, the one key that fits, or
///    none. An unknown `kid` fetches the set again once (at most once a minute), then is refused.
/// 4. **Signature**, by jwt-kit.
/// 5. **Claims**: `iss` is the issuer; `aud` contains the client id; with several audiences (or
///    whenever present) `azp` is the client id; `exp` is in the future and `iat` present and
///    not in the future, within ``Configuration/leeway``; `nonce` is the one sent; `sub` is
///    present; with `max_age`, `auth_time` is recent enough.
/// 6. **At refresh**: the same `iss` and `sub` as the session's first ID token, and no other
///    `nonce`; no new ID token keeps the current one.
///
/// Each failed check throws its own ``OpenIDError`` case; the token never appears in one.
public struct IDTokenVerifier: IdentityVerifier {
    /// What the verifier checks the token against, besides the provider.
    public struct Configuration: Sendable {
        /// The client id the token must be for.
        public var clientID: String
        /// The client secret, when the client was registered for HS256-signed ID tokens: HS256
        /// is then verified with it. nil (the default) refuses HS256.
        public var hs256ClientSecret: String?
        /// The clock skew allowed on `exp`, `iat` and `auth_time`. Default 60 s.
        public var leeway: Duration

        public init(clientID: String, hs256ClientSecret: String? = nil, leeway: Duration = .seconds(60)) {
            self.clientID = clientID
            self.hs256ClientSecret = hs256ClientSecret
            self.leeway = leeway
        }
    }

    /// The longest ID token accepted, in bytes.
    public static let maximumTokenLength = 64 * 1024

    /// The provider whose tokens are verified.
    public let provider: OpenIDProvider
    /// The client and the tolerances.
    public let configuration: Configuration

    public init(provider: OpenIDProvider, configuration: Configuration) {
        self.provider = provider
        self.configuration = configuration
    }

    /// Verifies `idToken`.
    ///
    /// - Parameters:
    ///   - idToken: The ID token, a compact JWS.
    ///   - nonce: The nonce the authorization request sent; nil when none was (none is checked then).
    ///   - maxAge: The `max_age` the authorization request sent, if any.
    /// - Throws: The ``OpenIDError`` of the first check that fails.
    public func verify(_ idToken: String, nonce: String? = nil, maxAge: Duration? = nil) async throws(OpenIDError) -> IDToken {
        let jwt: CompactJWT
        do {
            jwt = try CompactJWT(idToken, maximumLength: Self.maximumTokenLength)
        } catch {
            throw .malformedIDToken(reason: error.description)
        }
        if jwt.header["crit"] != nil { throw .malformedIDToken(reason: "its header has a crit member, which is not supported") }
        if let kid = jwt.header["kid"], kid.stringValue == nil { throw .malformedIDToken(reason: "its kid is not a string") }
        guard let algorithm = jwt.algorithm else { throw .malformedIDToken(reason: "its header has no alg") }
        let metadata = try await provider.metadata()
        guard algorithm != "none", metadata.idTokenSigningAlgorithms.contains(algorithm) else { throw .algorithmNotAllowed(algorithm: algorithm) }
        if algorithm == "HS256" {
            try await verifyHS256(idToken)
        } else if ProviderKey.asymmetricAlgorithms.contains(algorithm) {
            try await verifyWithProviderKey(idToken, algorithm: algorithm, keyID: jwt.keyID)
        } else {
            throw .algorithmNotAllowed(algorithm: algorithm)
        }
        let token = IDToken(claims: jwt.payload)
        try checkClaims(of: token, issuer: metadata.issuer, nonce: nonce, maxAge: maxAge)
        return token
    }

    // MARK: - Signature

    private func verifyHS256(_ idToken: String) async throws(OpenIDError) {
        // Never a key of the set: a provider's public key used as an HMAC secret is the classic forgery.
        guard let secret = configuration.hs256ClientSecret else { throw .algorithmNotAllowed(algorithm: "HS256") }
        guard secret.utf8.count >= 32 else { throw .hmacSecretTooShort }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: Data(secret.utf8)), digestAlgorithm: .sha256)
        try await verifySignature(idToken, with: keys)
    }

    private func verifyWithProviderKey(_ idToken: String, algorithm: String, keyID: String?) async throws(OpenIDError) {
        var snapshot = try await provider.keys()
        var choice = snapshot.keys.choose(algorithm: algorithm, keyID: keyID)
        if case .unknown = choice, let refetched = try await provider.keysAfterUnknownKey(seen: snapshot) {
            snapshot = refetched
            choice = refetched.keys.choose(algorithm: algorithm, keyID: keyID)
        }
        switch choice {
        case .unknown:
            throw .unknownKey(keyID: keyID)
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

    private func checkClaims(of token: IDToken, issuer: String, nonce: String?, maxAge: Duration?) throws(OpenIDError) {
        let clientID = configuration.clientID
        let now = provider.clock.now
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
        guard let expiresAt = IDToken.date(token.claims["exp"]), now < expiresAt.addingTimeInterval(leeway) else {
            throw .expired(at: IDToken.date(token.claims["exp"]))
        }
        guard let issuedAt = IDToken.date(token.claims["iat"]) else { throw .issuedAtMissing }
        guard issuedAt <= now.addingTimeInterval(leeway) else { throw .issuedInFuture(at: issuedAt) }
        if let nonce {
            guard let echoed = token.nonce, ConstantTime.equals(echoed, nonce) else { throw .nonceMismatch }
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
    public func verifyIdentity(in response: TokenResponse, for check: IdentityCheck) async throws(OAuth2Error) -> SessionIdentity? {
        do throws(OpenIDError) {
            switch check {
            case .signIn:
                guard let idToken = response.idToken else { throw OpenIDError.idTokenMissing }
                let context = response.authenticationRequest
                let token = try await verify(idToken, nonce: context?.nonce, maxAge: context?.maxAge)
                return SessionIdentity(idToken: idToken, claims: token.claims, provider: storedState)
            case .refresh(let current):
                guard let idToken = response.idToken else {
                    return current.map { SessionIdentity(idToken: $0.idToken, claims: $0.claims, provider: storedState) }
                }
                let token = try await verify(idToken)
                if let current {
                    // Core §12.2: the same person at the same provider; a nonce, if any, the first one.
                    guard token.issuer == current.issuer, token.subject == current.subject else { throw OpenIDError.subjectChanged }
                    if let nonce = token.nonce, nonce != current.claims["nonce"]?.stringValue { throw OpenIDError.nonceMismatch }
                }
                return SessionIdentity(idToken: idToken, claims: token.claims, provider: storedState)
            }
        } catch {
            throw error.oauth2Error
        }
    }

    /// Takes back the provider's documents stored with the session.
    public func restore(_ identity: SessionIdentity) async {
        if let stored = identity.provider { provider.restore(stored) }
    }

    /// What is stored with the session (`SessionIdentity.provider`): the provider's documents
    /// (``OpenIDProvider/storedState``) and, under `verifier`, whether HS256 is allowed and the
    /// leeway, so ``init(restoring:clientID:allowsHS256:transport:transportSecurity:logger:)`` verifies
    /// as this verifier did.
    public var storedState: JSONValue {
        var object = provider.storedState.objectValue ?? [:]
        object["verifier"] = .object([
            "hs256_client_secret": .bool(configuration.hs256ClientSecret != nil),
            "leeway_seconds": .number(String(Int64(Self.seconds(configuration.leeway)))),
        ])
        return .object(object)
    }
}

extension OpenIDProvider {
    /// A verifier of this provider's ID tokens for `clientID`.
    public func verifier(clientID: String, hs256ClientSecret: String? = nil, leeway: Duration = .seconds(60)) -> IDTokenVerifier {
        IDTokenVerifier(provider: self, configuration: .init(clientID: clientID, hs256ClientSecret: hs256ClientSecret, leeway: leeway))
    }
}
