import Foundation

/// A compact JWT (RFC 7519, JWS compact serialization: `header.payload.signature`) taken apart
/// **without verifying anything**: the header and payload as JSON objects, the signature bytes.
///
/// The customer-token source reads `exp` from it to plan a renewal (never to trust the token),
/// and the server's verifier uses it to refuse malformed input, `alg: none`, other algorithms
/// and unknown key ids before any cryptography runs. Hostile input never traps: the length is
/// bounded and the JSON reader is ``JSONScanner``.
package struct CompactJWT: Sendable {
    /// The longest token accepted by default, in bytes (customer tokens are a few hundred).
    package static let maximumLength = 8 * 1024

    /// Why a text is not a compact JWT.
    package enum Malformed: Error, Sendable, Hashable, CustomStringConvertible {
        /// Longer than the longest accepted (``CompactJWT/maximumLength`` bytes by default).
        case tooLong
        /// Not three dot-separated segments.
        case notThreeSegments
        /// A segment holds characters outside base64url (padding included) or has an impossible length.
        case notBase64URL(Segment)
        /// The header or payload is not a JSON object.
        case notJSONObject(Segment)

        /// The three segments.
        package enum Segment: String, Sendable, Hashable {
            case header, payload, signature
        }

        package var description: String {
            switch self {
            case .tooLong: "the token is longer than accepted"
            case .notThreeSegments: "the token is not three dot-separated segments"
            case .notBase64URL(let segment): "the \(segment.rawValue) is not base64url"
            case .notJSONObject(let segment): "the \(segment.rawValue) is not a JSON object"
            }
        }
    }

    /// The header's members (`alg`, `typ`, `kid`, …).
    package let header: [String: JSONValue]
    /// The payload's members (the claims).
    package let payload: [String: JSONValue]
    /// The signature's bytes (empty for an unsecured `alg: none` token).
    package let signature: Data

    /// Takes `token` apart; a token longer than `maximumLength` bytes is refused before anything is decoded.
    package init(_ token: some StringProtocol, maximumLength: Int = CompactJWT.maximumLength) throws(Malformed) {
        guard token.utf8.count <= maximumLength else { throw .tooLong }
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else { throw .notThreeSegments }
        header = try Self.object(segments[0], .header)
        payload = try Self.object(segments[1], .payload)
        guard let signature = Base64URL.decode(segments[2]) else { throw .notBase64URL(.signature) }
        self.signature = signature
    }

    /// The header's `alg`, when it is a string.
    package var algorithm: String? { header["alg"]?.stringValue }

    /// The header's `kid`, when it is a string.
    package var keyID: String? { header["kid"]?.stringValue }

    /// The payload's `exp` (RFC 7519 NumericDate: seconds, possibly fractional) as a date, when
    /// it is a finite number; nil when absent or of another type.
    package var expiresAt: Date? { payload["exp"]?.numericDate }

    /// The payload's `nbf`, read as ``expiresAt`` is.
    package var notBefore: Date? { payload["nbf"]?.numericDate }

    private static func object(_ segment: some StringProtocol, _ name: Malformed.Segment) throws(Malformed) -> [String: JSONValue] {
        guard let data = Base64URL.decode(segment) else { throw .notBase64URL(name) }
        guard let text = String(data: data, encoding: .utf8),
              case .object(let members)? = try? JSONScanner.parse(text) else { throw .notJSONObject(name) }
        return members
    }
}
