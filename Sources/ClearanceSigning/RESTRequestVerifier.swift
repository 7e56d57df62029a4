import Clearance
import ClearanceWire
import Crypto
import Foundation

/// Checks signed requests to the Pusher HTTP API, for a hub that accepts them.
///
/// Checks, in order: the parameters sign as themselves and nothing else (see
/// ``RESTRequestParameters``: lower-case names, no `&` in a value, no name twice); every
/// required parameter is present (`auth_key`, `auth_signature`, `auth_timestamp`,
/// `auth_version`, and `body_md5` when there is a body); `auth_key` is this app's key; `auth_version` is `1.0`; the signature over
/// `METHOD\nPATH\nQUERY` (see ``RESTRequestSigner``), compared in constant time; the timestamp
/// is within ``timestampWindow`` seconds of `now` either way; and `body_md5` matches the body.
/// A `body_md5` sent with an empty body (the Python library always sends one) must be the MD5
/// of the empty string.
public struct RESTRequestVerifier: Sendable {
    /// The app key expected in `auth_key`.
    public let key: String
    /// How far (in seconds) `auth_timestamp` may be from `now`, in either direction. Default 600.
    public let timestampWindow: Int64

    private let mac: KeyedHMAC

    /// Creates a verifier, validating its configuration.
    ///
    /// - Throws: ``SigningError/invalidKey`` or ``SigningError/emptySecret``.
    public init(key: String, secret: String, timestampWindow: Int64 = 600) throws(SigningError) {
        guard !key.isEmpty, !key.utf8.contains(UInt8(ascii: ":")) else { throw .invalidKey }
        guard !secret.isEmpty else { throw .emptySecret }
        self.key = key
        self.timestampWindow = timestampWindow
        mac = KeyedHMAC(secret: secret)
    }

    /// Verifies a request as it arrived, and returns what it verified: the only parameters and
    /// body to act on.
    ///
    /// - Parameters:
    ///   - method: The HTTP method (compared upper-cased).
    ///   - path: The request path, without the query.
    ///   - percentEncodedQuery: The query as it arrived, without its `?`.
    ///   - body: The request body, if any.
    ///   - now: The current time, injectable for tests.
    /// - Throws: what ``RESTRequestParameters/init(percentEncodedQuery:)`` throws, then what
    ///   ``verify(method:path:parameters:body:now:)`` throws.
    public func verify(method: String, path: String, percentEncodedQuery: String, body: Data?, now: Date = Date()) throws(SigningError) -> VerifiedRESTRequest {
        let parameters = try RESTRequestParameters(percentEncodedQuery: percentEncodedQuery)
        try verify(method: method, path: path, parameters: parameters, body: body, now: now)
        return VerifiedRESTRequest(parameters: parameters, body: body ?? Data())
    }

    /// Verifies a request whose query is already decoded, throwing the first failure.
    ///
    /// - Parameters:
    ///   - method: The HTTP method (compared upper-cased).
    ///   - path: The request path, without the query.
    ///   - query: The decoded (not percent-encoded) query parameters, names in lower case.
    ///   - body: The request body, if any.
    ///   - now: The current time, injectable for tests.
    /// - Throws: ``SigningError/invalidParameterName(_:)`` (a name not in lower case),
    ///   ``SigningError/ambiguousParameter(_:)``, then what
    ///   ``verify(method:path:parameters:body:now:)`` throws.
    public func verify(method: String, path: String, query: [String: String], body: Data?, now: Date = Date()) throws(SigningError) {
        try verify(method: method, path: path, parameters: RESTRequestParameters(query), body: body, now: now)
    }

    /// Verifies a request, throwing the first failure.
    ///
    /// - Throws: ``SigningError/missingParameter(_:)``,
    ///   ``SigningError/unknownKey``, ``SigningError/unsupportedAuthVersion``,
    ///   ``SigningError/invalidSignature``, ``SigningError/invalidTimestamp``,
    ///   ``SigningError/expiredTimestamp``, ``SigningError/futureTimestamp`` or
    ///   ``SigningError/bodyMD5Mismatch``.
    public func verify(method: String, path: String, parameters verified: RESTRequestParameters, body: Data?, now: Date = Date()) throws(SigningError) {
        try verifyHead(method: method, path: path, parameters: verified, hasBody: !(body?.isEmpty ?? true), now: now)
        try verifyBody(parameters: verified, body: body)
    }

    /// Verifies what a request's head carries, before its body is read: every required
    /// parameter, the key, the version, the signature (which covers the query, not the body) and
    /// the timestamp. A server that checks this first never reads, nor waits for, the body of a
    /// forged request. ``verifyBody(parameters:body:)`` checks the body's hash once it arrived.
    ///
    /// - Parameters:
    ///   - method: The HTTP method (compared upper-cased).
    ///   - path: The request path, without the query.
    ///   - verified: The query's parameters, read the one way they are signed.
    ///   - hasBody: Whether the request declares a body (a `Content-Length` above 0, or a chunked
    ///     one): `body_md5` is then required.
    ///   - now: The current time, injectable for tests.
    /// - Throws: as ``verify(method:path:parameters:body:now:)``, but for
    ///   ``SigningError/bodyMD5Mismatch``.
    public func verifyHead(method: String, path: String, parameters verified: RESTRequestParameters, hasBody: Bool, now: Date = Date()) throws(SigningError) {
        let parameters = verified.all
        guard let authKey = parameters["auth_key"] else { throw .missingParameter("auth_key") }
        guard let signature = parameters["auth_signature"] else { throw .missingParameter("auth_signature") }
        guard let timestampText = parameters["auth_timestamp"] else { throw .missingParameter("auth_timestamp") }
        guard let version = parameters["auth_version"] else { throw .missingParameter("auth_version") }
        if hasBody, parameters["body_md5"] == nil { throw .missingParameter("body_md5") }

        guard ConstantTime.equals(key, authKey) else { throw .unknownKey }
        guard version == RESTRequestSigner.authVersion else { throw .unsupportedAuthVersion }

        let stringToSign = RESTRequestSigner.stringToSign(method: method, path: path, parameters: parameters)
        let code = stringToSign.withUTF8Buffer { mac.code(for: $0) }
        guard KeyedHMAC.matches(hex: signature, code: code) else { throw .invalidSignature }

        guard let timestamp = Self.parseTimestamp(timestampText) else { throw .invalidTimestamp }
        let nowSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
        if nowSeconds.subtractingReportingOverflow(timestamp).partialValue > timestampWindow {
            throw .expiredTimestamp
        }
        if timestamp.subtractingReportingOverflow(nowSeconds).partialValue > timestampWindow {
            throw .futureTimestamp
        }
    }

    /// Verifies the body of a request whose head ``verifyHead(method:path:parameters:hasBody:now:)``
    /// accepted: a body needs `body_md5`, and `body_md5` must be its MD5. Returns what the two
    /// checks verified: the only parameters and body to act on.
    /// - Parameters:
    ///   - verified: The query's parameters, read the one way they are signed.
    ///   - body: The body as it arrived, if any.
    /// - Throws: ``SigningError/missingParameter(_:)`` or ``SigningError/bodyMD5Mismatch``.
    @discardableResult
    public func verifyBody(parameters verified: RESTRequestParameters, body: Data?) throws(SigningError) -> VerifiedRESTRequest {
        let parameters = verified.all
        if !(body?.isEmpty ?? true), parameters["body_md5"] == nil { throw .missingParameter("body_md5") }
        if let givenMD5 = parameters["body_md5"] {
            let expectedMD5 = RESTRequestSigner.md5Hex(body ?? Data())
            guard ConstantTime.equals(expectedMD5, givenMD5.lowercased()) else { throw .bodyMD5Mismatch }
        }
        return VerifiedRESTRequest(parameters: verified, body: body ?? Data())
    }

    /// Whether ``verify(method:path:query:body:now:)`` succeeds.
    public func isValid(method: String, path: String, query: [String: String], body: Data?, now: Date = Date()) -> Bool {
        do {
            try verify(method: method, path: path, query: query, body: body, now: now)
            return true
        } catch {
            return false
        }
    }

    /// Whole seconds: ASCII digits only, at most 18 of them (so it fits in `Int64`).
    private static func parseTimestamp(_ text: String) -> Int64? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
