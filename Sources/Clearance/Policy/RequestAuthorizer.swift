import Foundation
import HTTPTypes
import Logging

/// Applies an ``AuthorizationPolicy`` with a set of named ``CredentialSource``s: picks the
/// credential each request needs, checks it may travel, sends, and on a 401 that allows it,
/// refreshes **once** (shared with every other request waiting) and retries **once**.
///
/// Both `AuthorizedClient` (in ClearanceHTTP) and the OpenAPI middleware are thin shells
/// around ``send(_:attachCredential:errorBody:using:)``.
public struct RequestAuthorizer: Sendable {
    /// A credential that was put on a request, and where it came from.
    public struct AppliedCredential: Sendable {
        public var credential: Credential
        public var sourceName: String
        public var source: any CredentialSource
    }

    /// The policy in force.
    public let policy: AuthorizationPolicy
    /// Where credentials may be sent.
    public let transportSecurity: TransportSecurity
    private let sources: [String: any CredentialSource]
    private let logger: Logger

    /// Checks the configuration up front.
    /// - Throws: ``AuthorizationError/misconfigured(reason:)`` when the policy names a source nobody
    ///   registered (and logs an error naming it): never a silent request without a credential.
    public init(
        policy: AuthorizationPolicy,
        sources: [String: any CredentialSource],
        transportSecurity: TransportSecurity = .strict,
        logger: Logger = Logger(label: "clearance.authorizer")
    ) throws(AuthorizationError) {
        let missing = policy.referencedSources.subtracting(sources.keys).sorted()
        if !missing.isEmpty {
            let reason = "the policy names credential source\(missing.count == 1 ? "" : "s") \(missing.map { "'\($0)'" }.joined(separator: ", ")) that nobody registered"
            logger.error("misconfigured authorization policy", metadata: ["problem": "\(reason)"])
            throw .misconfigured(reason: reason)
        }
        self.policy = policy
        self.sources = sources
        self.transportSecurity = transportSecurity
        self.logger = logger
    }

    /// The credential `request` needs under the policy, or nil when it needs none.
    public func credential(for request: HTTPRequest) async throws(AuthorizationError) -> AppliedCredential? {
        let (requirement, _) = policy.requirement(for: request)
        let names = requirement.sourceNames
        guard !names.isEmpty else { return nil }
        let candidates = names.map { (name: $0, source: sources[$0]!) }
        let found = try await FallbackCredentialSource(candidates).resolve()
        return AppliedCredential(credential: found.credential, sourceName: found.name, source: found.source)
    }

    /// Sends `request` through `transmit` with the credential the policy asks for.
    ///
    /// - Parameters:
    ///   - request: The request; its method, host and path choose the policy rule.
    ///   - attachCredential: false to send without any credential (after a cross-origin redirect).
    ///   - errorBody: Reads a 401 or 403 answer's body (at most ``HTTPErrorResponse/maximumBodySize``
    ///     bytes), kept in the error.
    ///   - transmit: Sends one request on the wire; its errors are reported as ``AuthorizationError/networkFailure(underlying:)``.
    /// - Returns: The response, unless it is 401 (``AuthorizationError/unauthorized(_:)``)
    ///   or 403 (``AuthorizationError/forbidden(_:)``).
    public func send<Body: Sendable>(
        _ request: HTTPRequest,
        attachCredential: Bool = true,
        errorBody: (Body) async -> Data = { _ in Data() },
        using transmit: (HTTPRequest) async throws -> (HTTPResponse, Body)
    ) async throws(AuthorizationError) -> (HTTPResponse, Body) {
        if Task.isCancelled { throw .cancelled }
        let applied = attachCredential ? try await credential(for: request) : nil
        var outgoing = request
        if let applied {
            try transportSecurity.check(request)
            applied.credential.apply(to: &outgoing)
        }
        logger.trace("sending", metadata: Self.metadata(request, applied))
        var (response, body) = try await Self.transmit(outgoing, masking: applied?.credential, transmit)

        if response.status == .unauthorized, let applied, let refreshable = applied.source as? any RefreshableCredentialSource {
            let challenges = Self.challenges(in: response)
            if Self.allowsRefresh(challenges) {
                logger.debug("401: refreshing once and retrying once", metadata: Self.metadata(request, applied))
                let fresh = try await refreshable.refreshCredential(after: applied.credential)
                var retry = request
                fresh.apply(to: &retry)
                (response, body) = try await Self.transmit(retry, masking: fresh, transmit)
            }
        }
        switch response.status.code {
        case 401:
            logger.debug("unauthorized", metadata: Self.metadata(request, applied))
            throw .unauthorized(HTTPErrorResponse(response, body: await errorBody(body)))
        case 403:
            throw .forbidden(HTTPErrorResponse(response, body: await errorBody(body)))
        default:
            return (response, body)
        }
    }

    /// RFC 6750: refresh on `invalid_token` or when the server gave no reason; never on
    /// `insufficient_scope`, `invalid_request` or any other explicit error.
    public static func allowsRefresh(_ challenges: [AuthenticationChallenge]) -> Bool {
        let errors = challenges.compactMap(\.error)
        return errors.isEmpty || errors.contains("invalid_token")
    }

    /// The parsed `WWW-Authenticate` challenges of `response`.
    public static func challenges(in response: HTTPResponse) -> [AuthenticationChallenge] {
        AuthenticationChallenge.parse(response.headerFields[values: .wwwAuthenticate])
    }

    /// Sends once; a failure's text never shows `credential` (a query parameter in a failing URL).
    private static func transmit<Body>(
        _ request: HTTPRequest, masking credential: Credential?, _ transmit: (HTTPRequest) async throws -> (HTTPResponse, Body)
    ) async throws(AuthorizationError) -> (HTTPResponse, Body) {
        do {
            return try await transmit(request)
        } catch let error as AuthorizationError {
            throw error
        } catch {
            if error is CancellationError || Task.isCancelled { throw .cancelled }
            throw .networkFailure(underlying: credential.map { RedactedError.masking($0.secretForms, in: error) } ?? error)
        }
    }

    static func metadata(_ request: HTTPRequest, _ applied: AppliedCredential?) -> Logger.Metadata {
        // The path without its query: a query may carry a credential.
        let path = (request.path ?? "/").split(separator: "?", maxSplits: 1).first.map(String.init) ?? "/"
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)",
            "url": "\(request.scheme ?? "")://\(request.authority ?? "")\(path)",
        ]
        if let applied {
            metadata["credential"] = "\(applied.credential.kind)"
            metadata["source"] = "\(applied.sourceName)"
        }
        return metadata
    }
}
