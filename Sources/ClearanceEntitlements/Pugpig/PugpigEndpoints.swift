import Foundation

/// The URLs of a Pugpig subscription service: each endpoint its own URL, as Pugpig's security
/// API allows. A service has `sign_in`, `verify_subscription` and `edition_credentials`, and
/// may have `renew_token` and `sign_out`; a client configures those it uses (a call to one it
/// lacks fails with `entitlements.unknown` saying which).
public struct PugpigEndpoints: Sendable, Hashable {
    /// `sign_in`: credential fields → a token.
    public var signIn: URL?
    /// `renew_token?token=`: a new token for a stale one; nil when the service has none (a stale
    /// token then ends the session).
    public var renewToken: URL?
    /// `verify_subscription?token=`: the state and the issues.
    public var verifySubscription: URL?
    /// `edition_credentials?token=&product_id=`: the content credentials for one product.
    public var editionCredentials: URL?
    /// `sign_out?token=`, if the service has one.
    public var signOut: URL?

    /// Endpoints at these URLs.
    public init(signIn: URL? = nil, renewToken: URL? = nil, verifySubscription: URL? = nil, editionCredentials: URL? = nil, signOut: URL? = nil) {
        self.signIn = signIn
        self.renewToken = renewToken
        self.verifySubscription = verifySubscription
        self.editionCredentials = editionCredentials
        self.signOut = signOut
    }

    /// `url`, or the error naming the missing `endpoint`.
    static func required(_ url: URL?, _ endpoint: String) throws(EntitlementError) -> URL {
        guard let url else { throw .unknown(reason: "no \(endpoint) endpoint is configured") }
        return url
    }

    /// Every endpoint under `base`, by Pugpig's names (`base/sign_in`, `base/renew_token`, …).
    public static func standard(base: URL) -> PugpigEndpoints {
        PugpigEndpoints(
            signIn: base.appending(path: "sign_in"), renewToken: base.appending(path: "renew_token"),
            verifySubscription: base.appending(path: "verify_subscription"),
            editionCredentials: base.appending(path: "edition_credentials"), signOut: base.appending(path: "sign_out"))
    }
}

/// How parameters travel to a Pugpig endpoint.
public enum PugpigRequestMethod: String, Sendable, Hashable, CaseIterable {
    /// A `GET` with the parameters in the query string (Pugpig's default).
    case get = "GET"
    /// A `POST` with the parameters as a form body (keeps tokens and passwords out of server logs).
    case post = "POST"
}
