import Foundation
import HTTPTypes

/// What a server answered, kept by every error that an HTTP answer caused (as golang's
/// `oauth2.RetrieveError` and OpenAPI's `ClientError` keep the response): the status, the parsed
/// `WWW-Authenticate` challenges, a bounded and redacted ``bodySnippet`` that is safe to log, and
/// the ``body`` itself for the app.
///
/// ``description`` shows the status, the challenges and the snippet, never the raw body.
public struct HTTPErrorResponse: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The most body bytes kept.
    public static let maximumBodySize = 64 * 1024

    /// The HTTP status code.
    public let status: Int
    /// The parsed `WWW-Authenticate` challenges (RFC 9110 §11.6.1).
    public let challenges: [AuthenticationChallenge]
    /// The first 256 characters of the body, with anything that looks like a credential masked.
    public let bodySnippet: String
    /// The body as received, up to ``maximumBodySize`` bytes. Not redacted: it is the app's own
    /// data to read (an auth endpoint's error object, say); Clearance never logs or shows it.
    public let body: Data
    /// The `Retry-After` delay, when the server sent one in seconds.
    public let retryAfter: Duration?

    /// Keeps what the server answered.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - headerFields: The response's header fields (its `WWW-Authenticate` challenges and
    ///     `Retry-After` are read from them).
    ///   - body: The response body; up to ``maximumBodySize`` bytes are kept.
    ///   - secrets: Values of the request that caused the answer (a password, a client secret, a
    ///     token), masked in ``bodySnippet`` should the server echo them.
    ///   - keepsBody: False for an answer whose body may itself carry a credential (a token
    ///     response that could not be used): only the redacted snippet is kept.
    public init(status: Int, headerFields: HTTPFields = [:], body: some DataProtocol = Data(), masking secrets: [String] = [], keepsBody: Bool = true) {
        self.status = status
        self.challenges = AuthenticationChallenge.parse(headerFields[values: .wwwAuthenticate])
        let kept = Data(body.prefix(Self.maximumBodySize))
        self.body = keepsBody ? kept : Data()
        var snippet = Redactor.snippet(of: kept)
        for secret in secrets where secret.count >= 4 { snippet = snippet.replacingOccurrences(of: secret, with: Redactor.mask) }
        self.bodySnippet = snippet
        // Seconds only (the HTTP-date form is ignored), at most an hour.
        self.retryAfter = headerFields[.retryAfter].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 >= 0 ? .seconds(min($0, 3_600)) : nil }
    }

    /// Keeps what the server answered with `response`.
    public init(_ response: HTTPResponse, body: some DataProtocol = Data(), masking secrets: [String] = [], keepsBody: Bool = true) {
        self.init(status: response.status.code, headerFields: response.headerFields, body: body, masking: secrets, keepsBody: keepsBody)
    }

    /// ``body`` as UTF-8 text (never redacted: the app's own data; do not log it).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// `HTTP 401, challenge: Bearer error="invalid_token": <snippet>`.
    public var description: String {
        var text = "HTTP \(status)"
        if !challenges.isEmpty { text += ", challenge: " + challenges.map(\.description).joined(separator: ", ") }
        if !bodySnippet.isEmpty { text += ": \(bodySnippet)" }
        return text
    }

    /// Status, challenges and snippet; the raw body is not reflected (`dump` shows its size only).
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "challenges": challenges, "bodySnippet": bodySnippet, "bodyBytes": body.count], displayStyle: .struct)
    }
}
