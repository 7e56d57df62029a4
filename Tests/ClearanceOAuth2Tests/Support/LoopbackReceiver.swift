import ClearanceOAuth2
import ClearanceServer
import Foundation

/// Adapts ClearanceServer's listener to ClearanceOAuth2's receiver protocol.
struct LoopbackReceiver: AuthorizationRedirectReceiver {
    let listener: LoopbackRedirectListener
    var redirectURI: URL { listener.redirectURI }
    func receiveRedirect() async throws -> URL { try await listener.receiveRedirect() }
}
