import ClearanceSigning

/// One configured app with its signer and REST verifier built once.
struct HubApp: Sendable {
    let configuration: HubAppConfiguration
    let signer: ChannelAuthSigner
    let verifier: RESTRequestVerifier
    /// The origins whose pages may connect (checked before the WebSocket upgrade).
    let origins: OriginAllowlist
    /// Its limits: its own, else the hub's.
    let limits: HubAppLimits

    var id: String { configuration.id }
    var key: String { configuration.key }

    /// - Throws: ``HubConfigurationError/invalidApp(id:reason:)`` or
    ///   ``HubConfigurationError/invalidAllowedOrigin(appID:origin:problem:)``.
    init(configuration: HubAppConfiguration, limits: HubLimits) throws(HubConfigurationError) {
        self.configuration = configuration
        do {
            signer = try configuration.signer(limits: limits)
            verifier = try RESTRequestVerifier(key: configuration.key, secret: configuration.secret)
        } catch {
            throw .invalidApp(id: configuration.id, reason: error)
        }
        origins = try configuration.originAllowlist()
        self.limits = HubAppLimits(app: configuration, hub: limits)
    }
}
