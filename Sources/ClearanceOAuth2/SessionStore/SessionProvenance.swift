import Foundation

/// Who issued a stored session: the origin of its token endpoint, its client id and, with
/// OpenID Connect, its issuer. ``OAuth2Session`` records it with every session it saves and
/// checks it when it restores one: a session issued by another server or client is refused
/// (``OAuth2Error/storedSessionMismatch(member:stored:configured:)``), so that its tokens never
/// reach a server that did not issue them. Nothing secret.
public struct SessionProvenance: Sendable, Hashable, Codable {
    /// The token endpoint's origin: `scheme://host:port`, lowercased.
    public var tokenEndpointOrigin: String
    /// The client id.
    public var clientID: String
    /// The OpenID Connect issuer, when the session verifies identities with one.
    public var issuer: String?

    public init(tokenEndpointOrigin: String, clientID: String, issuer: String? = nil) {
        self.tokenEndpointOrigin = tokenEndpointOrigin
        self.clientID = clientID
        self.issuer = issuer
    }

    /// What a session configured with `configuration` issues: its token endpoint's origin, its
    /// client id and its identity verifier's issuer.
    public init(_ configuration: OAuth2SessionConfiguration) {
        self.init(
            tokenEndpointOrigin: Self.origin(of: configuration.endpoints.token), clientID: configuration.client.id,
            issuer: configuration.identityVerifier?.issuerIdentifier)
    }

    /// The member a provenance may differ in.
    public enum Member: String, Sendable, Hashable, CaseIterable {
        case tokenEndpoint = "token endpoint"
        case clientID = "client id"
        case issuer = "issuer"
    }

    /// The first member in which this (stored) provenance differs from `configured`, with both
    /// values; nil when a session configured as `configured` may use it. An issuer is compared
    /// only when `configured` has one.
    public func difference(from configured: SessionProvenance) -> (member: Member, stored: String, configured: String)? {
        if tokenEndpointOrigin != configured.tokenEndpointOrigin {
            return (.tokenEndpoint, tokenEndpointOrigin, configured.tokenEndpointOrigin)
        }
        if clientID != configured.clientID { return (.clientID, clientID, configured.clientID) }
        if let expected = configured.issuer, issuer != expected { return (.issuer, issuer ?? "(none)", expected) }
        return nil
    }

    /// `scheme://host:port` of `url`, lowercased, with the scheme's default port written out.
    public static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
