import Clearance
import ClearanceWire
import Foundation

/// Who signed in, as the session's ``IdentityVerifier`` verified it: with OpenID Connect, the
/// ID token's verified claims, the raw ID token (kept for `id_token_hint` at sign-out) and what
/// the verifier keeps about its provider (discovery document, key set).
///
/// It is kept with the tokens and saved with them (``StoredSession/identity``), encrypted by the
/// encrypted file store or in the Keychain. Holds a secret (the raw ID token): its
/// `description`, `debugDescription` and reflection show the subject and issuer only.
public struct SessionIdentity: Sendable, Hashable, Codable {
    /// The raw ID token (a JWS), as verified. Secret: only ever sent back to its provider (as
    /// `id_token_hint`).
    public var idToken: String
    /// The verified claims: `sub`, `iss`, `aud`, `exp`, `iat`, `email`, `name`, and the rest, as JSON values.
    public var claims: [String: JSONValue]
    /// What the verifier keeps about its provider between launches, opaque to the session
    /// (ClearanceOpenID: the discovery document and the key set, with when they were fetched).
    public var provider: JSONValue?

    public init(idToken: String, claims: [String: JSONValue], provider: JSONValue? = nil) {
        self.idToken = idToken
        self.claims = claims
        self.provider = provider
    }

    /// The `sub` claim: who signed in, unique at the issuer.
    public var subject: String? { claims["sub"]?.stringValue }
    /// The `iss` claim: the provider.
    public var issuer: String? { claims["iss"]?.stringValue }
    /// The `email` claim, when the provider gave one.
    public var email: String? { claims["email"]?.stringValue }
    /// The `name` claim, when the provider gave one.
    public var name: String? { claims["name"]?.stringValue }
    /// When the ID token expires (`exp`).
    public var expiresAt: Date? { claims["exp"]?.numericDate }
    /// When the ID token was issued (`iat`).
    public var issuedAt: Date? { claims["iat"]?.numericDate }
}

extension SessionIdentity: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "SessionIdentity(subject: \(subject ?? "none"), issuer: \(issuer ?? "none"), ID token: \(Redactor.mask))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["subject": subject ?? "none", "issuer": issuer ?? "none", "idToken": Redactor.mask], displayStyle: .struct)
    }
}
