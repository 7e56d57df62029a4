import Foundation
import JWTKit

/// The payload of the ``DevelopmentOAuth2Provider``'s ID tokens (ES256 JWTs, OpenID Connect
/// Core §2).
public struct DevelopmentIDTokenClaims: JWTPayload, Equatable {
    /// The provider's issuer URL.
    public var iss: IssuerClaim
    /// Who signed in: `user:<name>`.
    public var sub: SubjectClaim
    /// The client the token is for.
    public var aud: AudienceClaim
    /// When the token expires.
    public var exp: ExpirationClaim
    /// When it was issued.
    public var iat: IssuedAtClaim
    /// When the user signed in at the provider.
    public var authTime: Int
    /// The nonce of the authorization request (absent in tokens issued at refresh).
    public var nonce: String?
    /// The user's address, when the user name is one.
    public var email: String?
    /// A display name.
    public var name: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, authTime = "auth_time", nonce, email, name
    }

    public init(issuer: String, subject: String, clientID: String, issuedAt: Date, expiresAt: Date, authTime: Date, nonce: String?, email: String?, name: String?) {
        self.iss = IssuerClaim(value: issuer)
        self.sub = SubjectClaim(value: subject)
        self.aud = AudienceClaim(value: clientID)
        self.exp = ExpirationClaim(value: expiresAt)
        self.iat = IssuedAtClaim(value: issuedAt)
        self.authTime = Int(authTime.timeIntervalSince1970)
        self.nonce = nonce
        self.email = email
        self.name = name
    }

    /// The checks an end-session request applies to its `id_token_hint`: only that the provider
    /// signed it (RP-Initiated Logout §2 accepts an expired hint).
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
