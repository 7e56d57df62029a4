import Clearance
import Foundation
import HTTPTypes
import Logging

/// An HTTP client that authorizes every request by its `RequestAuthorizer`'s policy.
///
/// - Applies the credential the endpoint needs, fetched per request from its source.
/// - On a 401 whose challenge allows it (`invalid_token`, or no reason given) and a source that
///   can refresh: refreshes **once** (one fetch shared by every waiting request) and retries
///   **once**. A second 401 is `AuthorizationError.unauthorized`: never a loop.
/// - Follows redirects itself (up to ``maximumRedirects``) and strips every credential when the
///   origin changes, whatever the transport; with ``followsCrossOriginRedirects`` false, a
///   redirect to another origin is not followed at all (the 3xx answer is returned).
/// - Refuses to send a credential over plain HTTP except to loopback, unless allowed by the
///   authorizer's `TransportSecurity`.
/// - Honours task cancellation (`AuthorizationError.cancelled`).
/// - Lets the app adjust every outgoing request through ``RequestHook``.
///
/// Every error it throws is an `AuthorizationError`.
public struct AuthorizedClient: Sendable {
    /// Adjusts an outgoing request just before it is sent (libPusher's `willAuthorizeChannel:withAuthOperation:`).
    public typealias RequestHook = @Sendable (_ request: inout HTTPRequest, _ context: HookContext) async throws -> Void

    /// What the hook knows about the request it may adjust.
    public struct HookContext: Sendable {
        /// 0 for the first request, 1… for redirects.
        public var redirectCount: Int
        /// True when the request is the one retry after a refresh.
        public var isRetry: Bool
        /// False after a redirect to another origin: adding a credential then is the app's own risk.
        public var carriesCredential: Bool
    }

    /// The authorizer (policy, sources, transport security).
    public let authorizer: RequestAuthorizer
    /// The transport the requests go through.
    public let transport: any HTTPTransport
    /// How many redirects are followed before `AuthorizationError.tooManyRedirects`.
    public let maximumRedirects: Int
    /// Whether a redirect to another origin is followed (without any credential) or returned to
    /// the caller as it is. An auth endpoint's client returns it: its form body and the app's
    /// headers must never reach another origin.
    public let followsCrossOriginRedirects: Bool
    private let hook: RequestHook?
    private let logger: Logger

    public init(
        authorizer: RequestAuthorizer,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        maximumRedirects: Int = 10,
        followsCrossOriginRedirects: Bool = true,
        logger: Logger = Logger(label: "clearance.http"),
        willSend hook: RequestHook? = nil
    ) {
        self.authorizer = authorizer
        self.transport = transport
        self.maximumRedirects = maximumRedirects
        self.followsCrossOriginRedirects = followsCrossOriginRedirects
        self.logger = logger
        self.hook = hook
    }

    /// Sends `request` (an absolute URL) with `body`, authorized by the policy.
    public func send(_ request: HTTPRequest, body: Data? = nil) async throws(AuthorizationError) -> (HTTPResponse, Data) {
        var current = request
        var currentBody = body
        var carriesCredential = true
        var redirects = 0
        while true {
            let redirectCount = redirects
            let attach = carriesCredential
            var isRetry = false
            let (response, data) = try await authorizer.send(current, attachCredential: attach, errorBody: { $0 }) { outgoing in
                var outgoing = outgoing
                if let hook {
                    try await hook(&outgoing, HookContext(redirectCount: redirectCount, isRetry: isRetry, carriesCredential: attach))
                }
                isRetry = true
                return try await transport.send(outgoing, body: currentBody)
            }
            guard let step = RedirectStep.next(after: response, to: current, original: request),
                  step.keepsCredential || followsCrossOriginRedirects
            else {
                return (response, data)
            }
            redirects += 1
            guard redirects <= maximumRedirects else {
                throw .tooManyRedirects(limit: maximumRedirects, last: HTTPErrorResponse(response, body: data))
            }
            if carriesCredential && !step.keepsCredential {
                logger.debug("redirect to another origin: credentials dropped", metadata: ["to": "\(Origin(step.request)?.description ?? "?")"])
            }
            carriesCredential = carriesCredential && step.keepsCredential
            current = step.request
            if !step.keepsBody { currentBody = nil }
        }
    }

    /// Convenience: `send(HTTPRequest(method:url:headerFields:), body:)`.
    public func send(_ method: HTTPRequest.Method, _ url: URL, headerFields: HTTPFields = [:], body: Data? = nil) async throws(AuthorizationError) -> (HTTPResponse, Data) {
        try await send(HTTPRequest(method: method, url: url, headerFields: headerFields), body: body)
    }
}
