import JWTKit

/// The claims of a customer token as jwt-kit signs and decodes them: `sub` is the customer ids
/// object, `exp` and `nbf` optional NumericDates. Expiry is checked by
/// ``CustomerTokenVerifier`` (with its leeway), not here.
struct CustomerTokenPayload: JWTPayload {
    var sub: [String: String]
    var exp: ExpirationClaim?
    var nbf: NotBeforeClaim?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
