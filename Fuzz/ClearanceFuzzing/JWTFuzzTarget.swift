import ClearanceServer
import ClearanceWire
import Crypto
import Foundation

extension FuzzTarget {
    /// JWT decoding: `CompactJWT` (what the customer-token source reads `exp` with) and the hub's
    /// `CustomerTokenVerifier`. An even selector: the rest is a token as received; an odd one:
    /// the rest is a claims set, signed with the verifier's key first, so jwt-kit's claim
    /// decoding and the verifier's checks after the signature are reached.
    ///
    /// Invariants: `CompactJWT` reads back exactly the claims that were signed; a token the
    /// verifier accepts names a customer and is not expired.
    static let jwt = FuzzTarget(name: "jwt", summary: "CompactJWT, CustomerTokenVerifier.verify (jwt-kit HS256)") { data throws(FuzzViolation) in
        let input = FuzzInput(data)
        let token = input.selector & 1 == 0 ? input.text : JWTFuzzing.sign(claims: input.payload)
        let jwt = try? CompactJWT(token)
        _ = jwt?.expiresAt
        _ = jwt?.notBefore
        if input.selector & 1 == 1, token.utf8.count <= CompactJWT.maximumLength {
            let claims = String(data: input.payload, encoding: .utf8).flatMap { try? JSONScanner.parse($0) }?.objectValue
            try FuzzViolation.require(jwt?.payload == claims, "CompactJWT does not read back the signed claims")
        }
        // Built (itself through runBlocking) before entering runBlocking: never on a pool thread.
        let verifier = JWTFuzzing.verifier
        let verified = runBlocking { () async -> VerifiedCustomerToken? in try? await verifier?.verify(token) }
        if let verified {
            try FuzzViolation.require(!verified.customerIDs.isEmpty, "an accepted token names no customer")
            try FuzzViolation.require(verified.expiresAt.map { $0 > JWTFuzzing.now.addingTimeInterval(-60) } ?? true, "an accepted token is expired")
        }
    }
}

enum JWTFuzzing {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let secret = Data(repeating: 0x5A, count: 32)
    static let header = Base64URL.encode(Data(#"{"alg":"HS256","typ":"JWT","kid":"fuzz"}"#.utf8))

    static let verifier: CustomerTokenVerifier? = runBlocking {
        guard let key = try? CustomerTokenKey(id: "fuzz", secret: secret) else { return nil }
        return try? await CustomerTokenVerifier(keys: [key], now: { now })
    }

    /// `claims` as the payload of an HS256 token signed with the verifier's key.
    static func sign(claims: Data) -> String {
        let signingInput = header + "." + Base64URL.encode(claims)
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: secret))
        return signingInput + "." + Base64URL.encode(Data(mac))
    }
}
