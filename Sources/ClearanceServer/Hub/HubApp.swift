import ClearanceSigning

/// One configured app with its signer and REST verifier built once.
struct HubApp: Sendable {
    let configuration: HubAppConfiguration
    let signer: ChannelAuthSigner
    let verifier: RESTRequestVerifier

    var id: String { configuration.id }
    var key: String { configuration.key }

    init(configuration: HubAppConfiguration, limits: HubLimits) throws(SigningError) {
        self.configuration = configuration
        signer = try configuration.signer(limits: limits)
        verifier = try RESTRequestVerifier(key: configuration.key, secret: configuration.secret)
    }
}
