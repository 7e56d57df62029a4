import ClearanceWire
import Foundation

/// Keeps secrets out of logs, descriptions and error messages.
///
/// ``scrub(_:)`` masks what looks like a credential in free text: the value after an
/// `Authorization` scheme (`Bearer …`, `Token …`, `Basic …`, `OAuth2 …`), JSON members and
/// query or form parameters with secret-sounding names (`access_token`, `refresh_token`,
/// `password`, `client_secret`, `code`, `code_verifier`, `auth`, …) and JWT-shaped strings.
public enum Redactor {
    /// What a masked value is replaced with.
    public static let mask = "<redacted>"

    /// Names whose values are always secret in JSON, query strings and forms.
    public static let secretNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "password", "client_secret", "secret",
        "code", "code_verifier", "device_code", "auth", "app_token", "api_key", "apikey", "shared_secret",
        "authorization", "assertion", "client_assertion", "user_code",
    ]

    /// Returns `text` with every credential-looking value replaced by ``mask``.
    public static func scrub(_ text: String) -> String {
        var result = text
        for (expression, template) in patterns {
            let range = NSRange(result.startIndex..<result.endIndex, in: result)
            result = expression.stringByReplacingMatches(in: result, range: range, withTemplate: template)
        }
        return result
    }

    /// The text of an underlying error (a transport's, a library's), safe for a message: every
    /// URL's query string masked (FoundationNetworking's `URLError` descriptions embed the full
    /// failing URL, and a query may hold an API key under any name), then ``scrub(_:)``, then
    /// each of `secrets` (and its percent-encoded form) masked wherever it appears.
    public static func describe(_ error: any Error, masking secrets: [String] = []) -> String {
        mask(secrets, in: scrub(stripQueries(String(describing: error))))
    }

    /// `text` with the query string of every absolute URL in it replaced by ``mask``.
    public static func stripQueries(_ text: String) -> String {
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return urlQuery.stringByReplacingMatches(in: text, range: range, withTemplate: "$1?\(mask)")
    }

    /// `text` with every occurrence of each of `secrets` (as written and percent-encoded)
    /// replaced by ``mask``. Secrets shorter than four characters are left alone: masking them
    /// would garble the text without protecting anything.
    public static func mask(_ secrets: [String], in text: String) -> String {
        var result = text
        for secret in secrets where secret.count >= 4 {
            for form in Set([secret, PercentEncoding.encode(secret), secret.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? secret]) {
                result = result.replacingOccurrences(of: form, with: mask)
            }
        }
        return result
    }

    /// A bounded, scrubbed snippet of a response body for error messages.
    public static func snippet(of body: some DataProtocol, limit: Int = 256) -> String {
        let prefix = body.prefix(limit * 4)
        var text = String(decoding: prefix, as: UTF8.self)
        text = scrub(text)
        if text.count > limit { text = String(text.prefix(limit)) + "…" }
        return text
    }

    // scheme://authority/path?query → keeps what precedes the `?`.
    private static let urlQuery = try! NSRegularExpression(pattern: #"(\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s?#"'<>]*)\?[^\s#"'<>]*"#)

    private static let names = secretNames.sorted().map(NSRegularExpression.escapedPattern(for:)).joined(separator: "|")

    // NSRegularExpression is immutable once built and documented thread-safe for matching.
    private static let patterns: [(NSRegularExpression, String)] = [
        // Authorization schemes followed by a credential.
        (#"\b(Bearer|bearer|BEARER|Token|Basic|OAuth2|OAuth|Digest|ApiKey|APIKey)(\s+)[A-Za-z0-9\-._~+/=:%]{6,}"#, "$1$2\(mask)"),
        // JSON string members: "access_token": "…"
        (#"(?i)("(?:\#(names))"\s*:\s*)"(?:[^"\\]|\\.)*""#, "$1\"\(mask)\""),
        // Query and form parameters: access_token=…
        (#"(^|[?&\s;,={("'])((?:\#(names))=)[^&\s;,"'})]*"#, "$1$2\(mask)"),
        // JWT-shaped values anywhere.
        (#"\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"#, mask),
    ].map { (try! NSRegularExpression(pattern: $0.0), $0.1) }
}
