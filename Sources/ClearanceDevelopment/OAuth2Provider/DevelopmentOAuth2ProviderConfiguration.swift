import Crypto
import Foundation

/// Who may sign in to the ``DevelopmentOAuth2Provider``, and how its tokens look.
///
/// For development and demos only: secrets are plain strings in memory.
public struct DevelopmentOAuth2ProviderConfiguration: Sendable {
    /// Registered clients: id → secret. Confidential clients authenticate with
    /// `client_secret_basic` (id and secret form-urlencoded first) or `client_secret_post`.
    public var clients: [String: String]
    /// Public clients (native apps, the command line): no secret, the authorization code grant
    /// with PKCE and refresh only.
    public var publicClients: Set<String>
    /// Users for the password grant: user name → password.
    public var users: [String: String]
    /// Apps for PodioKit's `app` grant: app id → app token.
    public var apps: [String: String]
    /// The access tokens' lifetime: more than 0, at most ten years.
    public var accessTokenLifetime: Duration
    /// The refresh tokens' lifetime: more than 0, at most ten years.
    public var refreshTokenLifetime: Duration
    /// Whether every refresh returns a new refresh token and retires the old one.
    public var rotatesRefreshTokens: Bool
    /// The `iss` claim of the access tokens.
    public var issuer: String
    /// The HS256 signing key (at least 32 bytes; random by default).
    public var signingKey: SymmetricKey
    /// The OpenID issuer (discovery document, ID tokens' `iss`); nil: `http://<Host>` of each
    /// request, so the provider works on whatever loopback port it got.
    public var openIDIssuer: URL?

    public init(
        clients: [String: String] = ["demo-client": "demo-client-secret"],
        publicClients: Set<String> = ["demo-native"],
        users: [String: String] = ["jane@example.com": "demo-password"],
        apps: [String: String] = ["demo-app": "demo-app-token"],
        accessTokenLifetime: Duration = .seconds(3600),
        refreshTokenLifetime: Duration = .seconds(30 * 86_400),
        rotatesRefreshTokens: Bool = true,
        issuer: String = "clearance-development-provider",
        signingKey: SymmetricKey = SymmetricKey(size: .bits256),
        openIDIssuer: URL? = nil
    ) {
        self.clients = clients
        self.publicClients = publicClients
        self.openIDIssuer = openIDIssuer
        self.users = users
        self.apps = apps
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.rotatesRefreshTokens = rotatesRefreshTokens
        self.issuer = issuer
        self.signingKey = signingKey
    }
}
