import ClearanceOAuth2
import Foundation

/// The Swift block of `LoopbackRedirectListener`'s doc comment, compiled (a browser would follow
/// the URL; the flow itself is `LoopbackListenerTests`' and `GrantTests`' subject).
/// `DocumentationTests` checks the document shows the marked region.
enum OAuth2DocExamples {
    static func loopbackRedirectListenerDocComment(session: OAuth2Session, open: @escaping @Sendable (URL) -> Void) async throws {
        // snippet: begin
        let listener = try await LoopbackRedirectListener.start()
        defer { Task { await listener.stop() } }
        try await session.signIn(with: AuthorizationCodeFlow(receiver: listener) { url in open(url) })
        // snippet: end
    }
}
