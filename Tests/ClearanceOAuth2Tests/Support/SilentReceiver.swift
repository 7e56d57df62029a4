import ClearanceOAuth2
import Foundation

/// A redirect receiver that never receives anything (until cancelled).
struct SilentReceiver: AuthorizationRedirectReceiver {
    var redirectURI: URL { URL(string: "http://127.0.0.1:1/callback")! }
    func receiveRedirect() async throws -> URL {
        try await Task.sleep(for: .seconds(3_600))
        throw CancellationError()
    }
}
