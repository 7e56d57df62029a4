import Foundation
import JWTKit

/// The payload of the ``DevelopmentOAuth2Provider``'s access tokens (HS256 JWTs).
public struct DevelopmentAccessTokenClaims: JWTPayload, Equatable {
    /// Who the token is for: `user:<name>`, `app:<id>` or `client:<id>`.
    public var sub: SubjectClaim
    /// The provider.
    public var iss: IssuerClaim
    /// When the token expires.
    public var exp: ExpirationClaim
    /// When it was issued.
    public var iat: IssuedAtClaim
    /// A unique id, for revocation.
    public var jti: IDClaim
    /// The client it was issued to.
    public var clientID: String
    /// The granted scopes, space-separated.
    public var scope: String?

    enum CodingKeys: String, CodingKey {
        case sub, iss, exp, iat, jti, clientID = "client_id", scope
    }

    public init(subject: String, issuer: String, clientID: String, scope: String?, issuedAt: Date, expiresAt: Date, id: String) {
        self.sub = SubjectClaim(value: subject)
        self.iss = IssuerClaim(value: issuer)
        self.exp = ExpirationClaim(value: expiresAt)
        self.iat = IssuedAtClaim(value: issuedAt)
        self.jti = IDClaim(value: id)
        self.clientID = clientID
        self.scope = scope
    }

    public func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
