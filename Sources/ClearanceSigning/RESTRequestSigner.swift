import ClearanceWire
import Crypto
import Foundation

/// Signs requests to the Pusher HTTP API (`/apps/APP_ID/…`), as the official server libraries do.
///
/// The string to sign is `METHOD\nPATH\nQUERY`, where QUERY is every query parameter except
/// `auth_signature` (`auth_key`, `auth_timestamp`, `auth_version=1.0`, `body_md5` when there is
/// a body, and the caller's own), names lower-cased, sorted by name, joined as `k=v&…` **without**
/// URL-escaping. The method is upper-cased; the path is used as given.
public struct RESTRequestSigner: Sendable {
    /// The only `auth_version` this signer produces and ``RESTRequestVerifier`` accepts.
    public static let authVersion = "1.0"

    /// Parameter names the signer sets itself; callers may not pass them.
    public static let reservedParameterNames: Set<String> = [
        "auth_key", "auth_timestamp", "auth_version", "auth_signature", "body_md5",
    ]

    /// The app id, used in the API paths.
    public let appID: String
    /// The app key, sent as `auth_key`.
    public let key: String

    private let mac: KeyedHMAC

    /// Creates a signer, validating its configuration.
    ///
    /// - Throws: ``SigningError/invalidAppID`` (empty, or characters other than
    ///   `[A-Za-z0-9._-]`), ``SigningError/invalidKey`` or ``SigningError/emptySecret``.
    public init(appID: String, key: String, secret: String) throws(SigningError) {
        guard !appID.isEmpty, appID.utf8.allSatisfy(Self.isAppIDByte) else { throw .invalidAppID }
        guard !key.isEmpty, !key.utf8.contains(UInt8(ascii: ":")) else { throw .invalidKey }
        guard !secret.isEmpty else { throw .emptySecret }
        self.appID = appID
        self.key = key
        mac = KeyedHMAC(secret: secret)
    }

    /// `/apps/APP_ID/events`
    public var eventsPath: String { "/apps/\(appID)/events" }
    /// `/apps/APP_ID/batch_events`
    public var batchEventsPath: String { "/apps/\(appID)/batch_events" }
    /// `/apps/APP_ID/channels`
    public var channelsPath: String { "/apps/\(appID)/channels" }

    /// Signs a request at the time `now` (seconds are truncated).
    ///
    /// - Parameters:
    ///   - method: The HTTP method; upper-cased for signing.
    ///   - path: The request path, e.g. ``eventsPath``.
    ///   - query: The request's own query parameters, not percent-encoded.
    ///   - body: The request body; `body_md5` is added only when it is non-empty.
    ///   - now: The signing time, injectable for tests.
    /// - Throws: what ``sign(method:path:query:body:timestamp:)`` throws.
    public func sign(method: String, path: String, query: [String: String] = [:], body: Data? = nil, now: Date = Date()) throws(SigningError) -> RESTRequestSignature {
        try sign(method: method, path: path, query: query, body: body,
                 timestamp: Int64(now.timeIntervalSince1970.rounded(.down)))
    }

    /// The full URL of a signed request: `baseURL` (scheme, host, port) + `path` + the signed query.
    ///
    /// - Throws: what ``sign(method:path:query:body:now:)`` throws.
    public func signedURL(method: String, baseURL: URL, path: String, query: [String: String] = [:], body: Data? = nil, now: Date = Date()) throws(SigningError) -> URL {
        let signature = try sign(method: method, path: path, query: query, body: body, now: now)
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.percentEncodedPath = path
        components.percentEncodedQuery = signature.percentEncodedQuery
        return components.url ?? baseURL
    }

    /// Signs a request with an explicit `auth_timestamp` in seconds since 1970.
    ///
    /// - Throws: ``SigningError/reservedParameter(_:)``, ``SigningError/invalidParameterName(_:)``
    ///   (a name not in lower case: it would be signed lower-cased but sent as it is) or
    ///   ``SigningError/ambiguousParameter(_:)`` (a value holding `&`).
    public func sign(method: String, path: String, query: [String: String] = [:], body: Data?, timestamp: Int64) throws(SigningError) -> RESTRequestSignature {
        for name in query.keys where Self.reservedParameterNames.contains(name.lowercased()) { throw .reservedParameter(name) }
        _ = try RESTRequestParameters(query)
        var parameters = query
        let authTimestamp = String(timestamp)
        parameters["auth_key"] = key
        parameters["auth_timestamp"] = authTimestamp
        parameters["auth_version"] = Self.authVersion
        var bodyMD5: String?
        if let body, !body.isEmpty {
            let md5 = Self.md5Hex(body)
            parameters["body_md5"] = md5
            bodyMD5 = md5
        }
        let stringToSign = Self.stringToSign(method: method, path: path, parameters: parameters)
        let signature = stringToSign.withUTF8Buffer { KeyedHMAC.hex(mac.code(for: $0)) }
        parameters["auth_signature"] = signature
        return RESTRequestSignature(
            queryParameters: parameters,
            stringToSign: stringToSign,
            authSignature: signature,
            authTimestamp: authTimestamp,
            bodyMD5: bodyMD5
        )
    }

    // MARK: - Shared with the verifier

    /// `METHOD\nPATH\nQUERY` over every parameter except `auth_signature`, names lower-cased and
    /// sorted by UTF-8 bytes, joined `k=v&…` without escaping.
    static func stringToSign(method: String, path: String, parameters: [String: String]) -> String {
        let query = parameters
            .compactMap { name, value -> (String, String)? in
                let lower = name.lowercased()
                return lower == "auth_signature" ? nil : (lower, value)
            }
            .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            .map { $0.0 + "=" + $0.1 }
            .joined(separator: "&")
        return method.uppercased() + "\n" + path + "\n" + query
    }

    /// Lower-case hex MD5 of `body`.
    static func md5Hex(_ body: Data) -> String {
        Insecure.MD5.hash(data: body).withUnsafeBytes { Hex.string(bytes: $0) }
    }

    private static func isAppIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
