import Clearance
import ClearanceWire
import Foundation
import HTTPTypes

/// An OpenID provider's discovery document (OpenID Connect Discovery 1.0 §3), checked: its
/// `issuer` is exactly the one asked for, and every endpoint is an absolute URL that the
/// transport rules allow (https, or plain http to loopback, unless allowed).
///
/// ``document`` keeps every member as published, so it can be stored with the session and read
/// again at launch.
public struct OpenIDProviderMetadata: Sendable, Hashable {
    /// The issuer, exactly as the provider names itself (and as the ID tokens' `iss` must be).
    public let issuer: String
    /// Where the browser is sent to sign in.
    public let authorizationEndpoint: URL
    /// Where codes and refresh tokens are exchanged.
    public let tokenEndpoint: URL
    /// The provider's key set.
    public let jwksURI: URL
    /// The UserInfo endpoint, if any.
    public let userInfoEndpoint: URL?
    /// The RP-Initiated Logout endpoint, if any.
    public let endSessionEndpoint: URL?
    /// The RFC 7009 revocation endpoint, if listed.
    public let revocationEndpoint: URL?
    /// The algorithms the provider signs ID tokens with (`RS256` when the document lists none).
    public let idTokenSigningAlgorithms: [String]
    /// The PKCE methods the provider lists (empty when it lists none).
    public let codeChallengeMethods: [String]
    /// The scopes the provider lists (empty when it lists none).
    public let scopesSupported: [String]
    /// The document as published.
    public let document: [String: JSONValue]

    /// Reads and checks a discovery document fetched for `expectedIssuer`.
    ///
    /// - Throws: ``OpenIDError/discoveryIssuerMismatch(expected:found:)`` first of all when the
    ///   document's `issuer` is not exactly `expectedIssuer`;
    ///   ``OpenIDError/invalidDiscoveryDocument(reason:response:)`` when a required member is
    ///   missing; ``OpenIDError/insecureEndpoint(name:reason:)`` for an endpoint the transport
    ///   rules refuse.
    public init(document: [String: JSONValue], expectedIssuer: String, transportSecurity: TransportSecurity = .strict) throws(OpenIDError) {
        guard let issuer = document["issuer"]?.stringValue else {
            throw .invalidDiscoveryDocument(reason: "it has no issuer", response: nil)
        }
        guard issuer == expectedIssuer else {
            throw .discoveryIssuerMismatch(expected: expectedIssuer, found: issuer)
        }
        func endpoint(_ name: String, required: Bool) throws(OpenIDError) -> URL? {
            guard let value = document[name] else {
                if required { throw .invalidDiscoveryDocument(reason: "it has no \(name)", response: nil) }
                return nil
            }
            guard let text = value.stringValue, let url = URL(string: text), url.scheme != nil, url.host?.isEmpty == false else {
                throw .insecureEndpoint(name: name, reason: "it is not an absolute URL")
            }
            do {
                try transportSecurity.check(HTTPRequest(method: .get, url: url))
            } catch {
                throw .insecureEndpoint(name: name, reason: error.message)
            }
            return url
        }
        func strings(_ name: String) -> [String] {
            document[name]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        self.issuer = issuer
        // Required members (Discovery §3) a code-flow client uses.
        self.authorizationEndpoint = try endpoint("authorization_endpoint", required: true)!
        self.tokenEndpoint = try endpoint("token_endpoint", required: true)!
        self.jwksURI = try endpoint("jwks_uri", required: true)!
        self.userInfoEndpoint = try endpoint("userinfo_endpoint", required: false)
        self.endSessionEndpoint = try endpoint("end_session_endpoint", required: false)
        self.revocationEndpoint = try endpoint("revocation_endpoint", required: false)
        let algorithms = strings("id_token_signing_alg_values_supported")
        self.idTokenSigningAlgorithms = algorithms.isEmpty ? ["RS256"] : algorithms
        self.codeChallengeMethods = strings("code_challenge_methods_supported")
        self.scopesSupported = strings("scopes_supported")
        self.document = document
    }

    /// Where the discovery document of `issuer` is: the issuer, without a trailing `/`, plus
    /// `/.well-known/openid-configuration` (an issuer with a path keeps it, Discovery §4).
    public static func discoveryURL(forIssuer issuer: URL) -> URL {
        var text = issuer.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + "/.well-known/openid-configuration")!
    }
}

extension OpenIDProviderMetadata: CustomStringConvertible {
    public var description: String {
        "OpenIDProviderMetadata(issuer: \(issuer), token endpoint: \(tokenEndpoint), algorithms: \(idTokenSigningAlgorithms.joined(separator: " ")))"
    }
}
