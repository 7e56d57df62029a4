import Foundation

/// A request to the Pusher HTTP API that ``RESTRequestVerifier`` verified: its parameters and
/// body exactly as they were signed. Only the verifier makes one, so code that takes one (the
/// hub's API handlers) can only act on what was verified.
public struct VerifiedRESTRequest: Sendable, Hashable {
    /// The parameters the signature covers (`auth_*` and `body_md5` included).
    public let parameters: RESTRequestParameters
    /// The body the `body_md5` covers (empty when there was none).
    public let body: Data

    init(parameters: RESTRequestParameters, body: Data) {
        self.parameters = parameters
        self.body = body
    }
}
