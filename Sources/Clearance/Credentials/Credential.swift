import ClearanceWire
import Foundation
import HTTPTypes

/// What goes on a request to authorize it: an API key, a bearer token, HTTP Basic, an access
/// token under any scheme, custom headers or a query parameter.
///
/// A credential renders its header value once, when it is made, so applying it to a request is
/// a single header write. Its ``description``, ``debugDescription`` and reflection never show the
/// secret.
public struct Credential: Sendable, Hashable {
    /// What kind of credential this is. Carries no secret.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// `Authorization: Token <key>` (Bloomreach's API key form).
        case apiKey
        /// `Authorization: Bearer <token>` (RFC 6750).
        case bearer
        /// `Authorization: Basic base64(user:password)` (RFC 7617, UTF-8).
        case basic
        /// `Authorization: <scheme> <token>` with any scheme (PodioKit sends `OAuth2 <token>`).
        case accessToken(scheme: String)
        /// One or more custom headers (e.g. `X-API-Key`).
        case headers(names: [String])
        /// A query parameter (e.g. `?api_key=…`).
        case queryParameter(name: String)

        public var description: String {
            switch self {
            case .apiKey: "apiKey"
            case .bearer: "bearer"
            case .basic: "basic"
            case .accessToken(let scheme): "accessToken(\(scheme))"
            case .headers(let names): "headers(\(names.joined(separator: ", ")))"
            case .queryParameter(let name): "queryParameter(\(name))"
            }
        }
    }

    enum Placement: Sendable, Hashable {
        case authorization(String)
        case headers([HTTPField])
        case query(name: String, value: String)
    }

    /// The kind of credential, safe to log.
    public let kind: Kind
    /// When the credential stops being valid, if known. ``CachingCredentialSource`` uses it.
    public let expiresAt: Date?
    let placement: Placement
    /// The bare secret (token, key or password); used to decide emptiness and for redaction.
    let secret: String

    init(kind: Kind, placement: Placement, secret: String, expiresAt: Date?) {
        self.kind = kind
        self.placement = placement
        self.secret = secret
        self.expiresAt = expiresAt
    }

    /// `Authorization: Token <key>`.
    public static func apiKey(_ key: String, expiresAt: Date? = nil) -> Credential {
        Credential(kind: .apiKey, placement: .authorization("Token \(key)"), secret: key, expiresAt: expiresAt)
    }

    /// `Authorization: Bearer <token>`.
    public static func bearer(_ token: String, expiresAt: Date? = nil) -> Credential {
        Credential(kind: .bearer, placement: .authorization("Bearer \(token)"), secret: token, expiresAt: expiresAt)
    }

    /// `Authorization: <scheme> <token>`; `scheme` defaults to `Bearer`, PodioKit-style APIs use `OAuth2`.
    public static func accessToken(_ token: String, scheme: String = "Bearer", expiresAt: Date? = nil) -> Credential {
        Credential(
            kind: scheme == "Bearer" ? .bearer : .accessToken(scheme: scheme),
            placement: .authorization("\(scheme) \(token)"), secret: token, expiresAt: expiresAt)
    }

    /// HTTP Basic (RFC 7617) with UTF-8: `Authorization: Basic base64(user ":" password)`.
    /// - Throws: ``AuthorizationError/misconfigured(reason:)`` when `user` contains a colon, which RFC 7617 forbids.
    public static func basic(user: String, password: String, expiresAt: Date? = nil) throws(AuthorizationError) -> Credential {
        guard !user.contains(":") else {
            throw .misconfigured(reason: "an HTTP Basic user-id cannot contain ':' (RFC 7617)")
        }
        let encoded = Data("\(user):\(password)".utf8).base64EncodedString()
        return Credential(kind: .basic, placement: .authorization("Basic \(encoded)"), secret: password.isEmpty ? user : password, expiresAt: expiresAt)
    }

    /// Custom header fields, e.g. `[HTTPField(name: .init("X-API-Key")!, value: key)]`.
    public static func headers(_ fields: [HTTPField], expiresAt: Date? = nil) -> Credential {
        Credential(
            kind: .headers(names: fields.map(\.name.canonicalName)), placement: .headers(fields),
            secret: fields.map(\.value).joined(), expiresAt: expiresAt)
    }

    /// A query parameter `name=value`, appended to (or replacing the same name in) the request's query.
    public static func queryParameter(name: String, value: String, expiresAt: Date? = nil) -> Credential {
        Credential(kind: .queryParameter(name: name), placement: .query(name: name, value: value), secret: value, expiresAt: expiresAt)
    }

    /// Every form in which the secret may show in text (to mask it there): the secret, and
    /// what goes on the wire when that differs (Basic's base64, each custom header's value).
    var secretForms: [String] {
        switch placement {
        case .authorization(let value): [secret, String(value.split(separator: " ", maxSplits: 1).last ?? "")]
        case .headers(let fields): fields.map(\.value)
        case .query(_, let value): [value]
        }
    }

    /// True when the secret is empty or only whitespace: such a credential is never sent.
    public var isEmpty: Bool { secret.allSatisfy(\.isWhitespace) }

    /// True when the secret holds a control character (CR, LF, NUL, …) that would corrupt the request.
    var hasControlCharacters: Bool { secret.unicodeScalars.contains { $0.properties.generalCategory == .control } }

    /// The header value this credential puts in `Authorization`, if it uses that header. Secret: never log it.
    public var authorizationValue: String? {
        if case .authorization(let value) = placement { return value }
        return nil
    }

    /// Puts the credential on `request`, replacing any earlier value of the same header or parameter.
    @inlinable
    public func apply(to request: inout HTTPRequest) {
        applyPlacement(to: &request)
    }

    @usableFromInline
    func applyPlacement(to request: inout HTTPRequest) {
        switch placement {
        case .authorization(let value):
            request.headerFields[.authorization] = value
        case .headers(let fields):
            for field in fields { request.headerFields[field.name] = field.value }
        case .query(let name, let value):
            request.path = Self.settingQuery(name: name, value: value, in: request.path ?? "/")
        }
    }

    /// Removes what ``apply(to:)`` would have added.
    public func remove(from request: inout HTTPRequest) {
        switch placement {
        case .authorization:
            request.headerFields[.authorization] = nil
        case .headers(let fields):
            for field in fields { request.headerFields[field.name] = nil }
        case .query(let name, _):
            request.path = Self.removingQuery(name: name, from: request.path ?? "/")
        }
    }

    /// `path` with `name=value` as its query parameter: other parameters are kept as they were
    /// written, an earlier `name` is replaced; RFC 3986 percent-encoding (a `+` becomes `%2B`,
    /// never read as a space).
    static func settingQuery(name: String, value: String, in path: String) -> String {
        let (base, parameters) = splitQuery(path, dropping: name)
        return base + "?" + (parameters + [PercentEncoding.encode(name) + "=" + PercentEncoding.encode(value)]).joined(separator: "&")
    }

    /// `path` without its `name` query parameter.
    static func removingQuery(name: String, from path: String) -> String {
        let (base, parameters) = splitQuery(path, dropping: name)
        return parameters.isEmpty ? base : base + "?" + parameters.joined(separator: "&")
    }

    private static func splitQuery(_ path: String, dropping name: String) -> (base: String, parameters: [String]) {
        guard let mark = path.firstIndex(of: "?") else { return (path, []) }
        let parameters = path[path.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: true).filter { parameter in
            let rawName = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            return (PercentEncoding.decode(rawName, plusAsSpace: true) ?? String(rawName)) != name
        }
        return (String(path[..<mark]), parameters.map(String.init))
    }
}

extension Credential: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "Credential(\(kind), \(Redactor.mask)\(expiresAt.map { ", expiresAt: \($0)" } ?? ""))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["kind": kind, "secret": Redactor.mask, "expiresAt": expiresAt as Any], displayStyle: .struct)
    }
}
