import ClearanceWire

/// The result of signing a Pusher HTTP API request: the query parameters to send and the
/// intermediate values (useful for logging and tests).
public struct RESTRequestSignature: Sendable, Hashable {
    /// Every query parameter to send: the caller's, `auth_key`, `auth_timestamp`,
    /// `auth_version`, `body_md5` (only when there is a body) and `auth_signature`. Values are
    /// not percent-encoded; see ``percentEncodedQuery``.
    public let queryParameters: [String: String]
    /// `METHOD\nPATH\nQUERY`, the exact string that was signed.
    public let stringToSign: String
    /// Lower-case hex HMAC-SHA256 of ``stringToSign``.
    public let authSignature: String
    /// The `auth_timestamp` value (seconds since 1970).
    public let authTimestamp: String
    /// Lower-case hex MD5 of the body, when there was a body.
    public let bodyMD5: String?

    /// Creates a signature result from its parts.
    public init(
        queryParameters: [String: String],
        stringToSign: String,
        authSignature: String,
        authTimestamp: String,
        bodyMD5: String?
    ) {
        self.queryParameters = queryParameters
        self.stringToSign = stringToSign
        self.authSignature = authSignature
        self.authTimestamp = authTimestamp
        self.bodyMD5 = bodyMD5
    }

    /// ``queryParameters`` sorted by name (by UTF-8 bytes).
    public var sortedQueryItems: [(name: String, value: String)] {
        queryParameters
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { (name: $0.key, value: $0.value) }
    }

    /// ``queryParameters`` as a URL query (without `?`), names sorted, names and values
    /// percent-encoded except for RFC 3986 unreserved characters.
    public var percentEncodedQuery: String {
        sortedQueryItems
            .map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }
            .joined(separator: "&")
    }
}
