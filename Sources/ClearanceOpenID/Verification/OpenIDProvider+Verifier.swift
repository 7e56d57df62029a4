import Foundation

extension OpenIDProvider {
    /// A verifier of this provider's ID tokens for `clientID`.
    public func verifier(clientID: String, hs256ClientSecret: String? = nil, leeway: Duration = .seconds(60)) -> IDTokenVerifier {
        IDTokenVerifier(provider: self, configuration: .init(clientID: clientID, hs256ClientSecret: hs256ClientSecret, leeway: leeway))
    }
}
