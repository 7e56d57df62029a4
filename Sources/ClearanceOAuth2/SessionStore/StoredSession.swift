import Clearance
import Foundation

/// What a ``SessionStore`` keeps: the token set and, when the session is configured to store
/// it (the `clearance` command line does), where it came from, so that a later process can
/// refresh and revoke it.
///
/// Holds secrets (the tokens, the ID token, the client secret): its `description` shows none of them.
public struct StoredSession: Sendable, Hashable, Codable, SecretRedacting {
    /// The tokens.
    public var token: OAuth2Token
    /// The server's endpoints, when stored.
    public var endpoints: OAuth2Endpoints?
    /// The client identity (with its secret), when stored.
    public var client: OAuth2Client?
    /// The `Authorization` scheme the session sends, when stored.
    public var headerScheme: String?
    /// Who signed in (OpenID Connect: the verified ID token and its provider's documents), when
    /// the session has an ``IdentityVerifier``.
    public var identity: SessionIdentity?
    /// An ID token that came with ``token`` at a refresh and could not be verified yet (its
    /// provider's keys could not be fetched): kept, never used as ``identity``, and verified at
    /// the next refresh. Secret.
    public var pendingIDToken: String?
    /// When the session was saved.
    public var savedAt: Date
    /// Who issued it (token endpoint origin, client id, OpenID issuer): a session configured for
    /// another refuses it. nil in a store written before Clearance recorded it (accepted once,
    /// and saved again with it).
    public var provenance: SessionProvenance?

    public init(
        token: OAuth2Token, endpoints: OAuth2Endpoints? = nil, client: OAuth2Client? = nil, headerScheme: String? = nil,
        identity: SessionIdentity? = nil, pendingIDToken: String? = nil, savedAt: Date = Date(), provenance: SessionProvenance? = nil
    ) {
        self.provenance = provenance
        self.token = token
        self.endpoints = endpoints
        self.client = client
        self.headerScheme = headerScheme
        self.identity = identity
        self.pendingIDToken = pendingIDToken
        self.savedAt = savedAt
    }

    public var description: String {
        "StoredSession(\(token.info)\(endpoints.map { ", token endpoint: \($0.token)" } ?? "")\(client.map { ", \($0)" } ?? "")\(identity.map { ", \($0)" } ?? "")\(pendingIDToken == nil ? "" : ", an ID token pending verification"))"
    }
}
