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
    public init?(
        restoring stored: StoredSession,
        clientID: String? = nil,
        allowsHS256: Bool? = nil,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        transportSecurity: TransportSecurity = .strict,
        logger: Logger = Logger(label: "clearance.openid")
    ) {
        guard let identity = stored.identity, let issuer = identity.issuer.flatMap(URL.init(string:)),
              let client = stored.client ?? clientID.map({ OAuth2Client(id: $0) }),
              let provider = try? OpenIDProvider(issuer: issuer, transport: transport, transportSecurity: transportSecurity, logger: logger)
        else { return nil }
        if let documents = identity.provider { provider.restore(documents) }
        let options = identity.provider?["verifier"]
        let hs256 = allowsHS256 ?? (options?["hs256_client_secret"] == .bool(true))
        let leeway = options?["leeway_seconds"]?.intValue.map { Duration.seconds(max(0, min($0, 3_600))) } ?? .seconds(60)
        self.init(provider: provider, configuration: .init(clientID: client.id, hs256ClientSecret: hs256 ? client.secret : nil, leeway: leeway))
    }
}
