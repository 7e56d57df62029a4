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
/// ``receiveRedirect()``. It never logs the query: it carries the authorization code. Built on
/// SwiftNIO (which AsyncHTTPClient already brings), so this module needs no server framework.
///
/// ```swift
/// let listener = try await LoopbackRedirectListener.start()
/// defer { Task { await listener.stop() } }
/// try await session.signIn(with: AuthorizationCodeFlow(receiver: listener) { url in open(url) })
/// ```
public final class LoopbackRedirectListener: AuthorizationRedirectReceiver {
    private struct State {
        var received: [URL] = []
        var waiters: [UInt64: CheckedContinuation<URL, any Error>] = [:]
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

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
    /// - Parameter path: The redirect path, `/callback` by default.
    public static func start(path: String = "/callback", host: String = "127.0.0.1", logger: Logger = Logger(label: "clearance.oauth2.loopback")) async throws -> LoopbackRedirectListener {
        let normalizedPath = path.hasPrefix("/") ? path : "/" + path
        // The handlers exist before the listener does: they deliver through this slot.
        let slot = Locked<(listener: LoopbackRedirectListener?, early: [String])>((nil, []))
        let deliver: @Sendable (String) -> Void = { target in
            let listener = slot.withLock { slot -> LoopbackRedirectListener? in
                if slot.listener == nil { slot.early.append(target) }
                return slot.listener
            }
            listener?.deliver(target)
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
        for target in early { listener.deliver(target) }
        logger.debug("listening for the authorization redirect", metadata: ["redirectURI": "\(listener.redirectURI)"])
        return listener
    }

    /// Waits for the redirect and returns its full URL. Returns at once if one already arrived.
    /// Stops waiting with `CancellationError` when the task is cancelled.
    public func receiveRedirect() async throws -> URL {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                let ready: Result<URL, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if !state.received.isEmpty { return .success(state.received.removeFirst()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<URL, any Error>? in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return waiter
            }
            waiter?.resume(throwing: CancellationError())
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

    private func deliver(_ pathAndQuery: String) {
        guard let url = URL(string: pathAndQuery, relativeTo: redirectURI)?.absoluteURL else { return }
        let waiter = state.withLock { state -> CheckedContinuation<URL, any Error>? in
            if let first = state.waiters.keys.min() { return state.waiters.removeValue(forKey: first) }
            state.received.append(url)
            return nil
        }
        logger.debug("authorization redirect received")
        waiter?.resume(returning: url)
    }
}

/// Answers one HTTP/1 request: the redirect page on `GET path`, 404 otherwise; then closes.
private final class RedirectHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let page = "<!doctype html><meta charset=utf-8><title>Signed in</title><p>You can close this window and return to the application.</p>"

    private let path: String
    private let deliver: @Sendable (String) -> Void
    private var head: HTTPRequestHead?

    init(path: String, deliver: @escaping @Sendable (String) -> Void) {
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
            let requestPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
            let matched = head?.method == .GET && requestPath == path
            if matched { deliver(target) }
            respond(context, status: matched ? .ok : .notFound, body: matched ? Self.page : "Not found")
        }
    }

    private func respond(_ context: ChannelHandlerContext, status: HTTPResponseStatus, body: String) {
        let buffer = context.channel.allocator.buffer(string: body)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: status == .ok ? "text/html; charset=utf-8" : "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(buffer.readableBytes)")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
