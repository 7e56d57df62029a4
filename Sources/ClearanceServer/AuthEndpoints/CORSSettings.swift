/// How auth endpoints answer pages of other origins (Cross-Origin Resource Sharing): which
/// origins, whether with credentials, how long a preflight may be cached. Given to
/// ``PusherAuthEndpoints`` (its `cors` parameter), applied by ``AllowedOriginsCORS``.
///
/// pusher-js in a page on `https://app.example.com` calling `https://hub.example.com/pusher/auth`
/// with an `Authorization` header first sends a preflight `OPTIONS`; an allowed origin gets
/// `204` with `Access-Control-Allow-Origin: https://app.example.com`, the headers it asked for
/// and `Access-Control-Allow-Methods: POST`, and the `POST` itself carries
/// `Access-Control-Allow-Origin`. Another origin gets no CORS header (its browser blocks the
/// answer) and its preflight `403`.
///
/// Credentials (cookies) cross origin: with ``allowsCredentials``, the answers to listed
/// origins carry `Access-Control-Allow-Credentials: true`, so that a page there may send the
/// browser's cookies for the endpoints (`withCredentials`), and any page of those origins can
/// then get channels signed as the signed-in user. They are never allowed with ``OriginAllowlist/any``:
/// every website could otherwise do the same.
public struct CORSSettings: Sendable, Hashable {
    /// The headers allowed when a preflight asks for ones that are not plain header names.
    public static let defaultAllowedHeaders = ["Accept", "Authorization", "Content-Type", "X-Requested-With"]

    /// The origins answered.
    public var origins: OriginAllowlist
    /// Whether listed origins may send credentials (cookies). Default false; ignored with
    /// ``OriginAllowlist/any``.
    public var allowsCredentials: Bool
    /// How long a browser may cache a preflight's answer, in seconds (`Access-Control-Max-Age`).
    /// Default 600.
    public var maxAge: Int

    /// - Parameters:
    ///   - origins: The origins answered (default every one).
    ///   - allowsCredentials: Whether listed origins may send cookies (default false).
    ///   - maxAge: How long a preflight's answer may be cached, in seconds (default 600).
    public init(origins: OriginAllowlist = .any, allowsCredentials: Bool = false, maxAge: Int = 600) {
        self.origins = origins
        self.allowsCredentials = allowsCredentials
        self.maxAge = maxAge
    }

    /// Whether answers to an allowed origin carry `Access-Control-Allow-Credentials: true`.
    public var sendsCredentials: Bool { allowsCredentials && !origins.acceptsEveryOrigin }
}
