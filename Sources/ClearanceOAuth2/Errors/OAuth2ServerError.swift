import Clearance
import ClearanceWire
import Foundation

/// An error the authorization server answered with: RFC 6749 §5.2 (token endpoint), §4.1.2.1
/// (authorization redirect), RFC 8628 §3.5 (device polling) or RFC 7009 §2.2.1 (revocation).
///
/// Any response carrying an `error` member is one of these, whatever its HTTP status (some
/// servers answer errors with 200). The server's `error_description` is kept only after
/// redaction: the secrets of the request that caused it are masked, and so is anything that
/// looks like a credential.
public struct OAuth2ServerError: Sendable, Hashable, CustomStringConvertible {
    /// The `error` value as the server sent it (bounded to 64 characters of a safe alphabet).
    public let code: String
    /// The `error_description`, redacted and bounded, if the server sent one.
    public let serverDescription: String?
    /// The `error_uri`, if the server sent one.
    public let uri: String?
    /// The HTTP status of the response (0 for an error delivered in a redirect).
    public let httpStatus: Int
    /// The whole answer, when the error came in an HTTP response.
    public let response: HTTPErrorResponse?

    /// The RFC-defined meaning of ``code``; ``OAuth2Error/Code/unrecognizedServerError`` for a
    /// value no RFC defines.
    public var kind: OAuth2Error.Code {
        OAuth2Error.Code(rawValue: code).flatMap { OAuth2Error.Code.serverCodes.contains($0) ? $0 : nil } ?? .unrecognizedServerError
    }

    /// - Parameters:
    ///   - code: The `error` value.
    ///   - description: The `error_description`, if any.
    ///   - uri: The `error_uri`, if any.
    ///   - httpStatus: The HTTP status (0 when the error came in a redirect).
    ///   - secrets: Values that must not appear in the description (the request's token, password, secret, code).
    ///   - response: The whole answer, when the error came in an HTTP response.
    public init(code: String, description: String? = nil, uri: String? = nil, httpStatus: Int, secrets: [String] = [], response: HTTPErrorResponse? = nil) {
        self.code = Self.sanitizeCode(Self.sanitize(code, masking: secrets))
        self.serverDescription = description.map { Self.sanitize($0, masking: secrets) }
        self.uri = uri.map { Self.sanitize($0, masking: secrets) }
        self.httpStatus = httpStatus
        self.response = response
    }

    public var description: String {
        var text = code
        if httpStatus != 0 { text += " (HTTP \(httpStatus))" }
        if let serverDescription, !serverDescription.isEmpty { text += ": \(serverDescription)" }
        return text
    }

    /// Error codes are `%x20-21 / %x23-5B / %x5D-7E` (RFC 6749 §5.2); anything else is replaced.
    private static func sanitizeCode(_ code: String) -> String {
        let scalars = code.unicodeScalars.prefix(64).map { scalar -> Character in
            (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\" ? Character(scalar) : "?"
        }
        return String(scalars)
    }

    static func sanitize(_ text: String, masking secrets: [String]) -> String {
        var result = text
        for secret in secrets where secret.count >= 4 {
            result = result.replacingOccurrences(of: secret, with: Redactor.mask)
            let encoded = PercentEncoding.formEncode(secret)
            if encoded != secret { result = result.replacingOccurrences(of: encoded, with: Redactor.mask) }
        }
        result = Redactor.scrub(result)
        result = String(result.unicodeScalars.filter { $0.properties.generalCategory != .control }.map(Character.init))
        if result.count > 200 { result = String(result.prefix(200)) + "…" }
        return result
    }
}
