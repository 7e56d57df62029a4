import ClearanceOAuth2
import Foundation

/// A redirect receiver that never receives anything (until cancelled).
struct SilentReceiver: AuthorizationRedirectReceiver {
    var redirectURI: URL { URL(string: "http://127.0.0.1:1/callback")! }
    func receiveRedirect() async throws -> URL {
        // Nothing is ever sent on this stream: reading it ends only when the task is cancelled.
        let (redirects, continuation) = AsyncStream<URL>.makeStream()
        defer { continuation.finish() }
        for await url in redirects { return url }
        throw CancellationError()
    }
}
