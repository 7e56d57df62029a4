import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import Foundation

/// Everything that can go wrong with OpenID Connect: discovery, the provider's keys, every check
/// of an ID token (OpenID Connect Core §3.1.3.7 and §12.2), UserInfo and sign-out.
///
/// Each check has its own case and stable ``code`` (`openid.bad_signature`,
/// `openid.nonce_mismatch`, …), so an app, a log or the command line can tell them apart. No
/// message or description ever contains a token: claims are named, values that come from the
/// provider are scrubbed and shortened, and the token itself is never quoted.
///
/// An `OAuth2Session` reports them wrapped in `OAuth2Error.identityRefused` (a check
/// failed: nothing stored at sign-in, the session ended at refresh) or
/// `OAuth2Error.identityUnavailable` (keys or metadata could not be fetched);
/// `OAuth2Error.identityError` gives this error back.
public enum OpenIDError: ClearanceError {
    // MARK: Discovery
    /// The discovery document's `issuer` is not exactly the issuer asked for (Discovery §4.3):
    /// nothing else of it is used.
    case discoveryIssuerMismatch(expected: String, found: String)
    /// The discovery document could not be fetched or used (HTTP error, not JSON, a required member missing).
    case invalidDiscoveryDocument(reason: String, response: HTTPErrorResponse?)
    /// The provider could not be reached for its discovery document.
    case discoveryUnavailable(underlying: any Error)
    /// An endpoint of the discovery document breaks the transport rules (plain HTTP to a host
    /// that is not loopback, without it being allowed), or is not an absolute URL.
    case insecureEndpoint(name: String, reason: String)
    /// The issuer asked for is not an https URL (or http to loopback) without query or fragment.
    case invalidIssuer(reason: String)

    /// A request to the provider (discovery, key set, UserInfo) did not end by its deadline;
    /// the `TransportError.timedOut` names the endpoint. The next use asks again.
    case timedOut(TransportError)

    // MARK: Keys
    /// The key set (`jwks_uri`) could not be fetched or read, and no usable one is cached.
    case keySetUnavailable(reason: String, underlying: (any Error)?)

    // MARK: ID token
    /// The token response of a sign-in carries no `id_token` (was `openid` among the scopes?).
    case idTokenMissing
    /// A sign-in with the authorization code grant came without the OpenID Connect
    /// authentication request it answers (`AuthenticationRequestContext`: no nonce was sent),
    /// so its ID token cannot be tied to this sign-in: sign in with ``OpenIDAuthorizationCodeFlow``.
    case authenticationRequestMissing
    /// The ID token is not a compact JWS with a JSON header and payload, or uses a header
    /// Clearance does not understand (`crit`).
    case malformedIDToken(reason: String)
    /// The ID token's `alg` is `none`, not listed in the provider's
    /// `id_token_signing_alg_values_supported`, not one Clearance verifies, or HS256 without
    /// the app saying its client was registered for it.
    case algorithmNotAllowed(algorithm: String)
    /// HS256 is allowed, but the client secret is shorter than 32 bytes (RFC 7518 §3.2).
    case hmacSecretTooShort
    /// The ID token is signed with HS256, which the client was registered for, but its verifier
    /// was not given the client secret (a session restored without its secret, say).
    case hs256SecretMissing
    /// No key of the provider's key set has the ID token's `kid` (nor fits its algorithm), even
    /// after fetching the set again (or a refetch was not allowed yet: at most one a minute).
    /// Refused at sign-in; at a refresh the set may lag behind a rotation, so the session
    /// reports it as `OAuth2Error.identityUnavailable` and is kept.
    case unknownKey(keyID: String?)
    /// The ID token's `kid` names a key of the provider's set that does not fit its `alg` (another
    /// key type or curve, or the key's own `alg` is another): refused, never tried.
    case keyAlgorithmMismatch(keyID: String, algorithm: String)
    /// The ID token names no `kid` and the key set holds more than one key that fits its
    /// algorithm: the key cannot be chosen (Core §10.1).
    case keyNotIdentified(candidates: Int)
    /// The signature does not verify with the provider's key.
    case badSignature
    /// `iss` is not the provider's issuer.
    case issuerMismatch(expected: String, found: String?)
    /// `aud` does not contain the client id.
    case audienceMismatch(clientID: String)
    /// `azp` is present (or required, with several audiences) and is not the client id.
    case authorizedPartyMismatch(clientID: String, found: String?)
    /// `exp` is absent or not in the future (beyond the leeway).
    case expired(at: Date?)
    /// `iat` is absent.
    case issuedAtMissing
    /// `iat` is in the future (beyond the leeway).
    case issuedInFuture(at: Date)
    /// `nonce` is not the one this sign-in sent, or is present when none was sent (or, at a
    /// refresh, is not the first one).
    case nonceMismatch
    /// `sub` is absent, empty, longer than 255 characters or not ASCII.
    case subjectMissing
    /// A refreshed ID token names another subject (or issuer) than the session's (Core §12.2).
    case subjectChanged
    /// `max_age` was asked and `auth_time` is absent.
    case authenticationTimeMissing
    /// `max_age` was asked and the user authenticated longer ago than that.
    case authenticationTooOld(at: Date)

    // MARK: UserInfo
    /// The provider lists no `userinfo_endpoint`.
    case userInfoEndpointMissing
    /// The UserInfo answer's `sub` is not the ID token's (Core §5.3.4): the answer is not used.
    case userInfoSubjectMismatch
    /// The UserInfo endpoint answered a signed or encrypted JWT (`application/jwt`), which
    /// Clearance does not accept.
    case userInfoSignedUnsupported(contentType: String)
    /// The UserInfo answer is not a JSON object with a `sub`.
    case invalidUserInfo(reason: String, response: HTTPErrorResponse?)
    /// The UserInfo request failed (refused, unreachable, no token).
    case userInfoFailed(AuthorizationError)
    /// The session holds no verified identity (sign in with OpenID Connect first).
    case notSignedIn
    /// A stored session has an identity, but no ID token verifier can be made for it again
    /// (no issuer URL, an issuer the transport rules refuse, no client id).
    case storedIdentityUnusable(reason: String)
    /// The provider asked (for UserInfo) is not the one that issued the session's identity:
    /// nothing was sent to it.
    case providerMismatch(session: String, provider: String)

    /// ``qualifiedCode`` is `openid.<code>`.
    public static let codeDomain = "openid"

    /// Whether an ID token was refused (a check failed), as opposed to a provider that could not
    /// be asked: the session ends on a refusal at refresh (except ``unknownKey(keyID:)``, see
    /// there), and keeps going otherwise.
    public var isRefusal: Bool {
        switch self {
        case .discoveryUnavailable, .keySetUnavailable, .invalidDiscoveryDocument, .timedOut: false
        default: true
        }
    }

    /// This error as an `OAuth2Session` reports it: `OAuth2Error.identityRefused`, or
    /// `OAuth2Error.identityUnavailable` when the provider could not be asked.
    public var oauth2Error: OAuth2Error {
        isRefusal ? .identityRefused(self) : .identityUnavailable(self)
    }

    /// The error that caused this one, if any.
    public var underlying: (any Error)? {
        switch self {
        case .discoveryUnavailable(let error): error
        case .keySetUnavailable(_, let error): error
        case .userInfoFailed(let error): error
        case .timedOut(let error): error
        default: nil
        }
    }

    /// Each case's code and message (a human sentence that never contains a token).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .discoveryIssuerMismatch(let expected, let found):
            .init(.discoveryIssuerMismatch, "The discovery document names the issuer '\(Self.quote(found))', not '\(Self.quote(expected))' that was asked for; it was not used.")
        case .invalidDiscoveryDocument(let reason, let response):
            .init(.invalidDiscoveryDocument, "The provider's discovery document cannot be used\(response.map { " (HTTP \($0.status))" } ?? ""): \(Redactor.scrub(reason)).")
        case .discoveryUnavailable(let error):
            .init(.discoveryUnavailable, "The provider's discovery document could not be fetched: \(Redactor.describe(error)).")
        case .insecureEndpoint(let name, let reason):
            .init(.insecureEndpoint, "The provider's \(name) cannot be used: \(Redactor.scrub(reason)).")
        case .invalidIssuer(let reason):
            .init(.invalidIssuer, "The issuer cannot be used: \(Redactor.scrub(reason)).")
        case .keySetUnavailable(let reason, let error):
            .init(.keySetUnavailable, "The provider's key set could not be fetched: \(Redactor.scrub(reason))\(error.map { " (\(Redactor.describe($0)))" } ?? "").")
        case .idTokenMissing:
            .init(.idTokenMissing, "The token response carries no ID token (is 'openid' among the scopes?).")
        case .authenticationRequestMissing:
            .init(.authenticationRequestMissing, "The sign-in used the authorization code grant without an OpenID Connect authentication request (no nonce was sent), so its ID token cannot be tied to it: sign in with OpenIDAuthorizationCodeFlow, or set the response's authenticationRequest in the grant.")
        case .malformedIDToken(let reason):
            .init(.malformedIDToken, "The ID token is malformed: \(Redactor.scrub(reason)).")
        case .algorithmNotAllowed(let algorithm):
            .init(.algorithmNotAllowed, "The ID token is signed with '\(Self.quote(algorithm))', an algorithm that is not allowed for this provider and client.")
        case .hmacSecretTooShort:
            .init(.hmacSecretTooShort, "HS256 ID tokens are allowed, but the client secret is shorter than 32 bytes (RFC 7518 §3.2).")
        case .hs256SecretMissing:
            .init(.hs256SecretMissing, "The ID token was refused: this ID token is signed with HS256 and the client secret was not given.")
        case .timedOut(let error):
            .init(.timedOut, "The OpenID provider did not answer in time: \(error.message)")
        case .unknownKey(let keyID):
            .init(.unknownKey, "No key of the provider's key set has the ID token's key id\(keyID.map { " '\(Self.quote($0))'" } ?? "") and fits its algorithm, even after fetching the set again (at most once a minute).")
        case .keyAlgorithmMismatch(let keyID, let algorithm):
            .init(.keyAlgorithmMismatch, "The ID token's key id '\(Self.quote(keyID))' names a key of the provider's set that is not for '\(Self.quote(algorithm))', the token's algorithm.")
        case .keyNotIdentified(let candidates):
            .init(.keyNotIdentified, "The ID token names no key id and the provider's key set holds \(candidates) keys that fit its algorithm: it cannot be verified.")
        case .badSignature:
            .init(.badSignature, "The ID token's signature does not verify with the provider's key.")
        case .issuerMismatch(let expected, let found):
            .init(.issuerMismatch, "The ID token's issuer \(found.map { "'\(Self.quote($0))'" } ?? "(none)") is not '\(Self.quote(expected))'.")
        case .audienceMismatch(let clientID):
            .init(.audienceMismatch, "The ID token's audience does not contain the client id '\(Self.quote(clientID))'.")
        case .authorizedPartyMismatch(let clientID, let found):
            .init(.authorizedPartyMismatch, "The ID token's authorized party (azp) \(found.map { "'\(Self.quote($0))'" } ?? "is absent and") is not the client id '\(Self.quote(clientID))'.")
        case .expired(let at):
            .init(.expired, at.map { "The ID token expired at \($0.formatted(.iso8601))." } ?? "The ID token has no expiry (exp).")
        case .issuedAtMissing:
            .init(.issuedAtMissing, "The ID token has no issue time (iat).")
        case .issuedInFuture(let at):
            .init(.issuedInFuture, "The ID token says it was issued at \(at.formatted(.iso8601)), in the future beyond the allowed clock skew.")
        case .nonceMismatch:
            .init(.nonceMismatch, "The ID token's nonce is not the one this sign-in sent (or it carries one when none was sent): it was not issued for this sign-in.")
        case .subjectMissing:
            .init(.subjectMissing, "The ID token has no usable subject (sub: 1 to 255 ASCII characters).")
        case .subjectChanged:
            .init(.subjectChanged, "The refreshed ID token names another subject or issuer than the session's: the session was ended, as an identity never changes silently.")
        case .authenticationTimeMissing:
            .init(.authenticationTimeMissing, "max_age was asked, but the ID token has no authentication time (auth_time).")
        case .authenticationTooOld(let at):
            .init(.authenticationTooOld, "The user authenticated at \(at.formatted(.iso8601)), longer ago than the max_age asked.")
        case .userInfoEndpointMissing:
            .init(.userInfoEndpointMissing, "The provider's discovery document lists no userinfo_endpoint.")
        case .userInfoSubjectMismatch:
            .init(.userInfoSubjectMismatch, "The UserInfo answer names another subject than the ID token: it was not used.")
        case .userInfoSignedUnsupported(let contentType):
            .init(.userInfoSignedUnsupported, "The UserInfo endpoint answered '\(Self.quote(contentType))' (a signed or encrypted answer), which is not supported; register the client for JSON UserInfo answers.")
        case .invalidUserInfo(let reason, let response):
            .init(.invalidUserInfo, "The UserInfo answer cannot be used\(response.map { " (HTTP \($0.status))" } ?? ""): \(Redactor.scrub(reason)).")
        case .userInfoFailed(let error):
            .init(.userInfoFailed, "The UserInfo request failed (\(error.qualifiedCode)): \(error.message)")
        case .notSignedIn:
            .init(.notSignedIn, "The session holds no verified OpenID Connect identity; sign in first.")
        case .storedIdentityUnusable(let reason):
            .init(.storedIdentityUnusable, "The stored session's OpenID Connect identity cannot be verified again: \(Redactor.scrub(reason)). Sign in again.")
        case .providerMismatch(let session, let provider):
            .init(.providerMismatch, "The session's identity was issued by '\(Self.quote(session))', not by '\(Self.quote(provider))': nothing was sent to that provider.")
        }
    }

    /// A value from the provider, safe to show: scrubbed, at most 100 characters.
    static func quote(_ text: String) -> String {
        let scrubbed = Redactor.scrub(text)
        return scrubbed.count > 100 ? String(scrubbed.prefix(100)) + "…" : scrubbed
    }

    /// Stable codes, one per failure; ``qualifiedCode`` is `openid.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case discoveryIssuerMismatch = "discovery_issuer_mismatch"
        case invalidDiscoveryDocument = "invalid_discovery_document"
        case discoveryUnavailable = "discovery_unavailable"
        case insecureEndpoint = "insecure_endpoint"
        case invalidIssuer = "invalid_issuer"
        case keySetUnavailable = "key_set_unavailable"
        case idTokenMissing = "id_token_missing"
        case authenticationRequestMissing = "authentication_request_missing"
        case malformedIDToken = "malformed_id_token"
        case algorithmNotAllowed = "algorithm_not_allowed"
        case hmacSecretTooShort = "hmac_secret_too_short"
        case hs256SecretMissing = "hs256_secret_missing"
        case timedOut = "timed_out"
        case unknownKey = "unknown_key"
        case keyAlgorithmMismatch = "key_algorithm_mismatch"
        case keyNotIdentified = "key_not_identified"
        case badSignature = "bad_signature"
        case issuerMismatch = "issuer_mismatch"
        case audienceMismatch = "audience_mismatch"
        case authorizedPartyMismatch = "authorized_party_mismatch"
        case expired
        case issuedAtMissing = "issued_at_missing"
        case issuedInFuture = "issued_in_future"
        case nonceMismatch = "nonce_mismatch"
        case subjectMissing = "subject_missing"
        case subjectChanged = "subject_changed"
        case authenticationTimeMissing = "authentication_time_missing"
        case authenticationTooOld = "authentication_too_old"
        case userInfoEndpointMissing = "userinfo_endpoint_missing"
        case userInfoSubjectMismatch = "userinfo_subject_mismatch"
        case userInfoSignedUnsupported = "userinfo_signed_unsupported"
        case invalidUserInfo = "invalid_userinfo"
        case userInfoFailed = "userinfo_failed"
        case notSignedIn = "not_signed_in"
        case storedIdentityUnusable = "stored_identity_unusable"
        case providerMismatch = "provider_mismatch"
    }
}
