import Clearance
import Foundation

/// What an OpenID Connect authentication request asked the provider for, that the ID token
/// answering it must honour (OpenID Connect Core §3.1.2.1, §3.1.3.7): the `nonce` sent, and the
/// `max_age` when one was.
///
/// The grant that sent the request sets it on its ``TokenResponse`` (ClearanceOpenID's
/// `OpenIDAuthorizationCodeFlow` does); the session's ``IdentityVerifier`` checks the ID token
/// against it. It is never read from the server's answer. The nonce is not secret once sent,
/// but it is not shown either: `description`, `debugDescription` and the mirror say whether one
/// was sent, never which.
public struct AuthenticationRequestContext: Sendable, Hashable {
    /// The `nonce` the authorization request carried, which the ID token must echo.
    public var nonce: String?
    /// The `max_age` the authorization request carried: the ID token must then carry an
    /// `auth_time` no older than this.
    public var maxAge: Duration?

    public init(nonce: String? = nil, maxAge: Duration? = nil) {
        self.nonce = nonce
        self.maxAge = maxAge
    }
}

extension AuthenticationRequestContext: SecretRedacting {
    public var description: String {
        "AuthenticationRequestContext(nonce: \(nonce == nil ? "none" : "sent"), max_age: \(maxAge.map { "\($0)" } ?? "none"))"
    }
}
