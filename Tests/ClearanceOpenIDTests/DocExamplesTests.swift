import ClearanceOAuth2
import ClearanceOpenID
import Foundation

/// The Swift blocks of `ClearanceOpenID`'s doc comments, compiled (they name a provider on the
/// internet; the landing page's sign-in runs in `ReadmeOpenIDExampleTests`).
/// `DocumentationTests` checks the documents show the marked regions.
enum OpenIDDocExamples {
    static func openIDProviderDocComment() async throws -> IDTokenVerifier {
        // snippet: begin
        let provider = try await OpenIDProvider.discover(issuer: URL(string: "https://id.example.com")!)
        let verifier = provider.verifier(clientID: "my-app")
        // snippet: end
        return verifier
    }

    static func authorizationCodeFlowDocComment(session: OAuth2Session, open: @escaping @Sendable (URL) -> Void) async throws {
        // snippet: begin
        let listener = try await LoopbackRedirectListener.start()
        try await session.signIn(with: OpenIDAuthorizationCodeFlow(receiver: listener) { url in open(url) })
        // snippet: end
    }
}
