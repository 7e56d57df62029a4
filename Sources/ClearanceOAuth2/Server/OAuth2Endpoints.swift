import Foundation

/// Where the authorization server's endpoints are.
public struct OAuth2Endpoints: Sendable, Hashable, Codable {
    /// The token endpoint (RFC 6749 §3.2). Required.
    public var token: URL
    /// The revocation endpoint (RFC 7009), if the server has one: ``OAuth2Session/signOut()`` uses it.
    public var revocation: URL?
    /// The authorization endpoint (RFC 6749 §3.1), for the authorization code grant.
    public var authorization: URL?
    /// The device authorization endpoint (RFC 8628 §3.1), for the device grant.
    public var deviceAuthorization: URL?

    public init(token: URL, revocation: URL? = nil, authorization: URL? = nil, deviceAuthorization: URL? = nil) {
        self.token = token
        self.revocation = revocation
        self.authorization = authorization
        self.deviceAuthorization = deviceAuthorization
    }
}
