import JWTKit

/// What jwt-kit decodes after checking a signature: nothing. Clearance reads the claims itself
/// (every check has its own error), from the same bytes jwt-kit verified.
struct SignatureOnlyPayload: JWTPayload {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
