import Clearance
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Catches the browser's redirect at the end of an authorization request, for command-line and
/// desktop apps (RFC 8252 §7.3): a small HTTP listener on 127.0.0.1, on a port the system picks.
///
/// It answers the redirect with a static page that echoes nothing from the request, answers 404
/// to any other path, and hands the full redirect URL (with `code` and `state`) to
/// ``receiveRedirect()``. While a sign-in waits for its `state` (``receiveRedirect(state:)``,
/// as `AuthorizationCodeFlow` does), a redirect with another `state` (forged by another local
/// process, or left from an earlier attempt) is answered with an error page and ignored, until
/// the real one comes or the flow's timeout ends. At most ``maximumPendingRedirects`` redirects
/// wait for a caller, and a request target longer than ``maximumTargetLength`` bytes is refused
/// (414): memory stays bounded whatever reaches the port. It never logs the query: it carries
/// the authorization code. Built on
/// SwiftNIO (which AsyncHTTPClient already brings), so this module needs no server framework.
///
/// ```swift
/// let listener = try await LoopbackRedirectListener.start()
/// defer { Task { await listener.stop() } }
/// try await session.signIn(with: AuthorizationCodeFlow(receiver: listener) { url in open(url) })
/// ```
public final class LoopbackRedirectListener: AuthorizationRedirectReceiver {
    private struct Waiter {
        var continuation: CheckedContinuation<URL, any Error>
        /// The `state` it waits for; nil: any redirect.
        var state: String?
    }

    private struct State {
        var received: [URL] = []
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    /// How many redirects wait for a caller at most; more are answered with the error page.
    public static let maximumPendingRedirects = 16
    /// The longest request target (path and query) accepted, in bytes.
    public static let maximumTargetLength = 8_192

    /// The redirect URI to register and send: `http://127.0.0.1:<port><path>`.
    public let redirectURI: URL
    private let state = Locked(State())
    private let channel: Locked<(any Channel)?>
    private let logger: Logger

    private init(redirectURI: URL, channel: any Channel, logger: Logger) {
        self.redirectURI = redirectURI
        self.channel = Locked(channel)
        self.logger = logger
    }

    /// Starts listening on `host` (127.0.0.1 by default) at a free port.
    /// - Parameters:
    ///   - path: The redirect path, `/callback` by default.
    ///   - host: The loopback address to listen on (RFC 8252 §7.3 prefers the IP literal).
    ///   - logger: Where it logs (never a code or a state).
    public static func start(path: String = "/callback", host: String = "127.0.0.1", logger: Logger = Logger(label: "clearance.oauth2.loopback")) async throws -> LoopbackRedirectListener {
        let normalizedPath = path.hasPrefix("/") ? path : "/" + path
        // The handlers exist before the listener does: they deliver through this slot.
        let slot = Locked<(listener: LoopbackRedirectListener?, early: [String])>((nil, []))
        let deliver: @Sendable (String) -> Bool = { target in
            // Before the listener exists, a redirect is kept (the signed-in page) while there is
            // room, and refused (the error page) beyond it, as the listener itself does.
            let (listener, kept) = slot.withLock { slot -> (LoopbackRedirectListener?, Bool) in
                guard slot.listener == nil else { return (slot.listener, false) }
                guard slot.early.count < LoopbackRedirectListener.maximumPendingRedirects else { return (nil, false) }
                slot.early.append(target)
                return (nil, true)
            }
            return listener?.deliver(target) ?? kept
        }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(RedirectHandler(path: normalizedPath, deliver: deliver))
                }
            }
            .bind(host: host, port: 0)
            .get()
        let port = channel.localAddress?.port ?? 0
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let listener = LoopbackRedirectListener(redirectURI: URL(string: "http://\(bracketed):\(port)\(normalizedPath)")!, channel: channel, logger: logger)
        let early = slot.withLock { slot -> [String] in
            slot.listener = listener
            defer { slot.early = [] }
            return slot.early
        }
        for target in early { _ = listener.deliver(target) }
        logger.debug("listening for the authorization redirect", metadata: ["redirectURI": "\(listener.redirectURI)"])
        return listener
    }

    /// Waits for the redirect and returns its full URL. Returns at once if one already arrived.
    /// Stops waiting with `CancellationError` when the task is cancelled.
    public func receiveRedirect() async throws -> URL {
        try await wait(for: nil)
    }

    /// Waits for the redirect whose `state` is `state`: redirects with another (or no) `state`
    /// are answered with an error page and dropped. Returns at once if it already arrived.
    public func receiveRedirect(state: String) async throws -> URL {
        try await wait(for: state)
    }

    /// The redirect whose `state` is `state` if it already arrived, taken; nil otherwise. Redirects
    /// with another (or no) `state` are dropped, as ``receiveRedirect(state:)`` drops them.
    public func takeArrivedRedirect(state expected: String) -> URL? {
        state.withLock { state in
            state.received.removeAll { Self.state(of: $0) != expected }
            return state.received.isEmpty ? nil : state.received.removeFirst()
        }
    }

    /// Redirects received that no caller took yet (for tests).
    package var pendingCount: Int { state.withLock { $0.received.count } }

    /// Callers waiting for a redirect (for tests).
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    private func wait(for expected: String?) async throws -> URL {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                let ready: Result<URL, any Error>? = state.withLock { state in
                    // The cancelled flag is set before `onCancel` runs and both sides take this lock:
                    // a cancellation is either seen here or finds the waiter there.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let expected { state.received.removeAll { Self.state(of: $0) != expected } }
                    if !state.received.isEmpty { return .success(state.received.removeFirst()) }
                    state.waiters[id] = Waiter(continuation: continuation, state: expected)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Stops listening.
    public func stop() async {
        let open = channel.withLock { channel -> (any Channel)? in
            defer { channel = nil }
            return channel
        }
        try? await open?.close()
    }

    /// Hands a redirect to the caller waiting for it, or keeps it for one; false when it is
    /// refused (another `state` than every caller waits for, or too many waiting already).
    private func deliver(_ pathAndQuery: String) -> Bool {
        guard let url = URL(string: pathAndQuery, relativeTo: redirectURI)?.absoluteURL else { return false }
        let redirectState = Self.state(of: url)
        let (accepted, waiter) = state.withLock { state -> (Bool, Waiter?) in
            if state.waiters.isEmpty {
                guard state.received.count < Self.maximumPendingRedirects else { return (false, nil) }
                state.received.append(url)
                return (true, nil)
            }
            let matching = state.waiters.filter { $0.value.state == nil || $0.value.state == redirectState }
            guard let first = matching.keys.min() else { return (false, nil) }
            return (true, state.waiters.removeValue(forKey: first))
        }
        logger.debug(accepted ? "authorization redirect received" : "authorization redirect ignored: not the sign-in in progress")
        waiter?.continuation.resume(returning: url)
        return accepted
    }

    private static func state(of url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value
    }
}

/// Answers one HTTP/1 request: the redirect page on `GET path` (an error page when the listener
/// refuses the redirect), 414 for an overlong target, 404 otherwise; then closes. Bodies are
/// never kept.
private final class RedirectHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let page = "<!doctype html><meta charset=utf-8><title>Signed in</title><p>You can close this window and return to the application.</p>"
    private static let refusedPage = "<!doctype html><meta charset=utf-8><title>Not signed in</title><p>This answer does not belong to the sign-in in progress. Return to the application and try again.</p>"

    private let path: String
    private let deliver: @Sendable (String) -> Bool
    private var head: HTTPRequestHead?

    init(path: String, deliver: @escaping @Sendable (String) -> Bool) {
        self.path = path
        self.deliver = deliver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            let target = head?.uri ?? "/"
            guard target.utf8.count <= LoopbackRedirectListener.maximumTargetLength else {
                return respond(context, status: .uriTooLong, body: "Request target too long")
            }
            let requestPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
            guard head?.method == .GET && requestPath == path else {
                return respond(context, status: .notFound, body: "Not found")
            }
            if deliver(target) {
                respond(context, status: .ok, body: Self.page)
            } else {
                respond(context, status: .badRequest, body: Self.refusedPage)
            }
        }
    }

    private func respond(_ context: ChannelHandlerContext, status: HTTPResponseStatus, body: String) {
        let buffer = context.channel.allocator.buffer(string: body)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: body.hasPrefix("<!doctype") ? "text/html; charset=utf-8" : "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(buffer.readableBytes)")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
