import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceWire
import Foundation
import HTTPTypes

extension OAuth2Session {
    /// Asks `provider`'s UserInfo endpoint about the signed-in user: a `GET` with the session's
    /// access token as `Authorization: Bearer` (refreshed once on a 401, as every request through
    /// `AuthorizedClient` is), under the session's transport rules.
    ///
    /// The access token only goes to the provider that issued the session's identity: asked
    /// about another `provider`, nothing is sent.
    ///
    /// - Throws: ``OpenIDError/notSignedIn`` without a verified identity;
    ///   ``OpenIDError/providerMismatch(session:provider:)`` when `provider` is not the issuer of
    ///   the session's identity; ``OpenIDError/userInfoEndpointMissing``; ``OpenIDError/userInfoSignedUnsupported(contentType:)``
    ///   for an `application/jwt` answer; ``OpenIDError/invalidUserInfo(reason:response:)`` for
    ///   anything but a JSON object with a `sub`; ``OpenIDError/userInfoSubjectMismatch`` when
    ///   its `sub` is not the ID token's (Core §5.3.4: the answer is not used);
    ///   ``OpenIDError/timedOut(_:)`` when the request did not end by the transport's deadline;
///   ``OpenIDError/userInfoFailed(_:)`` when it fails otherwise.
    public func userInfo(from provider: OpenIDProvider) async throws(OpenIDError) -> UserInfo {
        await restore()
        guard let identity, let subject = identity.subject else { throw .notSignedIn }
        guard identity.issuer == provider.issuerIdentifier else {
            throw .providerMismatch(session: identity.issuer ?? "", provider: provider.issuerIdentifier)
        }
        guard let endpoint = try await provider.metadata().userInfoEndpoint else { throw .userInfoEndpointMissing }
        let response: HTTPResponse
        let body: Data
        do {
            let authorizer = try RequestAuthorizer(policy: .always("session"), sources: ["session": self], transportSecurity: configuration.transportSecurity)
            let client = AuthorizedClient(authorizer: authorizer, transport: configuration.transport, followsCrossOriginRedirects: false)
            (response, body) = try await client.send(.get, endpoint, headerFields: [.accept: "application/json"])
        } catch {
            if let timeout = TransportError.timeout(in: error) { throw .timedOut(timeout) }
            throw .userInfoFailed(error)
        }
        guard response.status.code == 200 else {
            throw .invalidUserInfo(reason: "the answer is not HTTP 200", response: HTTPErrorResponse(response, body: body))
        }
        let contentType = response.headerFields[.contentType]?.lowercased() ?? ""
        if contentType.hasPrefix("application/jwt") { throw .userInfoSignedUnsupported(contentType: contentType) }
        guard body.count <= 512 * 1024, let text = String(data: body, encoding: .utf8), case .object(let claims)? = try? JSONScanner.parse(text) else {
            throw .invalidUserInfo(reason: "the answer is not a JSON object", response: HTTPErrorResponse(response, body: body))
        }
        guard let answered = claims["sub"]?.stringValue else {
            throw .invalidUserInfo(reason: "the answer has no sub", response: nil)
        }
        guard answered == subject else { throw .userInfoSubjectMismatch }
        return UserInfo(claims: claims)
    }
}
