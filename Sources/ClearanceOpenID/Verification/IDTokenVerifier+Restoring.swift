import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import Foundation
import Logging

extension IDTokenVerifier {
    /// A verifier for the session `stored` (its issuer, client id, the provider's documents and
    /// the verifier's options stored with it), so a relaunched process refreshes and signs out
    /// without discovering the provider again first. nil when the stored session has no OpenID
    /// Connect identity.
    ///
    /// - Parameters:
    ///   - stored: The stored session (`OAuth2Session`'s store holds it).
    ///   - clientID: The client id, when the session was stored without its client
    ///     (`OAuth2SessionConfiguration.storesClientConfiguration` off).
    ///   - allowsHS256: Whether the stored client was registered for HS256 ID tokens; nil: as
    ///     the verifier that signed in said.
    ///   - transport: The transport for the provider's key set and discovery document.
    ///   - transportSecurity: Where the provider may be reached (https, or loopback, by default).
    ///   - logger: Where it logs (never a token).
    /// - Throws: ``OpenIDError/storedIdentityUnusable(reason:)`` when the session has an identity
    ///   but no verifier can be made for it (no issuer URL, an issuer the transport rules refuse,
    ///   no client id): a session going on without its verifier would take refreshed ID tokens
    ///   unverified, so it must not go on silently.
    public init?(
        restoring stored: StoredSession,
        clientID: String? = nil,
        allowsHS256: Bool? = nil,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        transportSecurity: TransportSecurity = .strict,
        logger: Logger = Logger(label: "clearance.openid")
    ) throws(OpenIDError) {
        guard let identity = stored.identity else { return nil }
        guard let issuerText = identity.issuer, let issuer = URL(string: issuerText) else {
            throw .storedIdentityUnusable(reason: "it names no issuer URL")
        }
        guard let client = stored.client ?? clientID.map({ OAuth2Client(id: $0) }) else {
            throw .storedIdentityUnusable(reason: "the session was stored without its client, and no client id was given")
        }
        let provider: OpenIDProvider
        do {
            provider = try OpenIDProvider(issuer: issuer, transport: transport, transportSecurity: transportSecurity, logger: logger)
        } catch {
            throw .storedIdentityUnusable(reason: "its issuer cannot be used: \(error.message)")
        }
        if let documents = identity.provider { provider.restore(documents) }
        let options = identity.provider?["verifier"]
        let hs256 = allowsHS256 ?? (options?["hs256_client_secret"] == .bool(true))
        let leeway = options?["leeway_seconds"]?.intValue.map { Duration.seconds(max(0, min($0, 3_600))) } ?? .seconds(60)
        var configuration = Configuration(clientID: client.id, hs256ClientSecret: hs256 ? client.secret : nil, leeway: leeway)
        configuration.allowsHS256WithoutSecret = hs256 && client.secret == nil
        self.init(provider: provider, configuration: configuration)
    }
}
