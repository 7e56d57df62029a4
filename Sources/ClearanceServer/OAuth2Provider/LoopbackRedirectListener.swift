import Foundation
import Hummingbird
import Logging
import Synchronization

/// A small HTTP listener on 127.0.0.1 (port chosen by the system) that catches the browser's
/// redirect at the end of an OAuth 2.0 authorization request, for command-line and desktop
/// apps (RFC 8252 §7.3).
///
/// It answers the redirect with a static page that echoes nothing from the request, ignores
/// other paths (404), and hands the full redirect URL (with `code` and `state`) to
/// ``receiveRedirect()``. It never logs the query: it carries the authorization code.
/// ClearanceOAuth2's `AuthorizationCodeFlow` takes it through its `AuthorizationRedirectReceiver` protocol.
public final class LoopbackRedirectListener: Sendable {
    private struct State {
        var received: [URL] = []
        var waiters: [UInt64: CheckedContinuation<URL, any Error>] = [:]
        var cancelledEarly: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    /// The redirect URI to register and send: `http://127.0.0.1:<port><path>`.
    public let redirectURI: URL
    private let state: Mutex<State>
    private let server: Mutex<RunningServer?>

    private init(redirectURI: URL, server: RunningServer) {
        self.redirectURI = redirectURI
        self.state = Mutex(State())
        self.server = Mutex(server)
    }

    /// Starts listening on `host` (127.0.0.1 by default) at a free port.
    /// - Parameter path: The redirect path, `/callback` by default.
    public static func start(path: String = "/callback", host: String = "127.0.0.1", logger: Logger = Logger(label: "clearance.oauth2.loopback")) async throws -> LoopbackRedirectListener {
        let normalizedPath = path.hasPrefix("/") ? path : "/" + path
        let box = Box()
        let router = Router()
        router.get(RouterPath(normalizedPath)) { request, _ -> Response in
            box.deliver(request.uri.description)
            return Self.page
        }
        let running = try await RunningServer.start(router, host: host, port: 0, logger: logger)
        let redirectURI = URL(string: "http://\(host):\(running.port)\(normalizedPath)")!
        let listener = LoopbackRedirectListener(redirectURI: redirectURI, server: running)
        box.attach(listener)
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
        let running = server.withLock { server -> RunningServer? in
            defer { server = nil }
            return server
        }
        await running?.stop()
    }

    fileprivate func deliver(_ pathAndQuery: String) {
        guard let url = URL(string: pathAndQuery, relativeTo: redirectURI)?.absoluteURL else { return }
        let waiter = state.withLock { state -> CheckedContinuation<URL, any Error>? in
            if let first = state.waiters.keys.min() { return state.waiters.removeValue(forKey: first) }
            state.received.append(url)
            return nil
        }
        waiter?.resume(returning: url)
    }

    private static var page: Response {
        let html = "<!doctype html><meta charset=utf-8><title>Signed in</title><p>You can close this window and return to the application.</p>"
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// Lets the route reach the listener, which exists only once the server runs.
    private final class Box: Sendable {
        private let listener = Mutex<LoopbackRedirectListener?>(nil)
        private let early = Mutex<[String]>([])

        func attach(_ listener: LoopbackRedirectListener) {
            let pending = self.listener.withLock { current -> [String] in
                current = listener
                return early.withLock { queue in
                    defer { queue.removeAll() }
                    return queue
                }
            }
            for item in pending { listener.deliver(item) }
        }

        func deliver(_ pathAndQuery: String) {
            let target = listener.withLock { current -> LoopbackRedirectListener? in
                guard let current else {
                    early.withLock { $0.append(pathAndQuery) }
                    return nil
                }
                return current
            }
            target?.deliver(pathAndQuery)
        }
    }
}
