import Clearance
import Foundation
import HTTPTypes
import HTTPTypesFoundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` on `URLSession` (FoundationNetworking on Linux), with redirects turned off.
///
/// Linux's `URLSession` forwards `Authorization` to another host when it follows a redirect;
/// this transport never follows one: its session delegate declines every redirect and
/// ``AuthorizedClient`` decides what travels. It keeps nothing between calls: no cookies, no
/// response cache (whatever the configuration it is given says).
///
/// **Deadlines.** Every request ends by its deadline, even when the server stalls in the middle
/// of the body (`URLSessionConfiguration.timeoutIntervalForRequest` is only an idle timeout on
/// Linux): ``send(_:body:)`` within ``timeout`` (60 s by default) from sending to the end of the
/// body; ``stream(_:body:receive:)`` within ``streamTimeout`` (1 h by default) as a whole, with
/// at most ``idleTimeout`` (60 s by default) between two chunks. The caller then gets
/// ``TransportError/timedOut(endpoint:limit:idle:)`` naming the endpoint, and the task is
/// cancelled. `withTimeout(_:streamTimeout:idleTimeout:)` gives a shorter deadline.
public final class URLSessionHTTPTransport: HTTPTransport {
    private let session: URLSession
    private let delegate = SessionDelegate()
    /// The largest response body read by ``send(_:body:)``; a longer one fails with
    /// ``TransportError/bodyTooLarge(limit:)`` as soon as it is known (as the AsyncHTTPClient
    /// transport's option of the same name).
    public let maximumBodySize: Int
    /// The deadline for one request, from sending to the end of the body.
    public let timeout: Duration
    /// The deadline for one streamed request (``stream(_:body:receive:)``: a download), the body included.
    public let streamTimeout: Duration
    /// The longest a streamed body may send nothing (``stream(_:body:receive:)``).
    public let idleTimeout: Duration
    /// The clock the deadlines are measured on: `ContinuousClock` unless another was given (a
    /// test's clock, moved by hand).
    public let clock: any Clock<Duration>

    /// - Parameters:
    ///   - configuration: The session configuration (proxies, headers; its timeouts only add to
    ///     ours). The transport uses a copy without cookies or a response cache.
    ///   - maximumBodySize: The largest response body ``send(_:body:)`` reads (16 MiB by default).
    ///   - timeout: The deadline for one request, head and body (60 s by default).
    ///   - streamTimeout: The deadline for one streamed request (1 h by default).
    ///   - idleTimeout: The longest a streamed body may send nothing (60 s by default).
    ///   - clock: The clock the deadlines are measured on.
    public init(
        configuration: URLSessionConfiguration = .ephemeral, maximumBodySize: Int = 16 << 20, timeout: Duration = .seconds(60),
        streamTimeout: Duration = .seconds(3_600), idleTimeout: Duration = .seconds(60), clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.session = URLSession(configuration: Self.withoutStateKept(configuration), delegate: delegate, delegateQueue: nil)
        self.maximumBodySize = max(0, maximumBodySize)
        self.timeout = timeout
        self.streamTimeout = streamTimeout
        self.idleTimeout = idleTimeout
        self.clock = clock
    }

    deinit { session.finishTasksAndInvalidate() }

    /// A copy of `configuration` (the caller's object is left as it is) that keeps nothing from
    /// one call to the next: no cookies set, and no response cache, neither read nor filled
    /// (`.ephemeral` and `.default` each carry one). A credential's answer is never kept in
    /// memory, and no task looks in a cache before it starts: FoundationNetworking does that on a
    /// queue of its own, and a cancel that lands then can stop the process ("Trying to access a
    /// behaviour for a task that in not in the registry").
    static func withoutStateKept(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        copy.httpShouldSetCookies = false
        copy.urlCache = nil
        copy.requestCachePolicy = .reloadIgnoringLocalCacheData
        return copy
    }

    /// Reads the body as it arrives and stops (cancelling the task) once it passes
    /// ``maximumBodySize``, or at once when `Content-Length` announces more; all within ``timeout``.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let limit = maximumBodySize
        return try await RequestDeadline(url: request.url, limit: timeout, clock: clock).whole { [self] in
            try await collect(request, body: body, limit: limit)
        }
    }

    private func collect(_ request: HTTPRequest, body: Data?, limit: Int) async throws -> (HTTPResponse, Data) {
        try await exchange(request, body: body) { head, chunks in
            if let length = head.headerFields[.contentLength].flatMap(Int.init), length > limit {
                throw TransportError.bodyTooLarge(limit: limit)
            }
            var data = Data()
            for try await chunk in chunks {
                guard chunk.count <= limit - data.count else { throw TransportError.bodyTooLarge(limit: limit) }
                data.append(chunk)
            }
            return (head, data)
        }
    }
}

extension URLSessionHTTPTransport {
    /// Streams the body as the session's data delegate receives it (URLSession pushes: chunks
    /// wait in memory when `receive` reads slower than the network delivers), within
    /// ``streamTimeout`` as a whole and ``idleTimeout`` between chunks.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest, body: Data?,
        receive: (HTTPResponse, HTTPResponseBody) async throws -> Result
    ) async throws -> Result {
        let deadline = RequestDeadline(url: request.url, limit: streamTimeout, idle: idleTimeout, clock: clock)
        return try await deadline.structured {
            try await exchange(request, body: body) { head, chunks in
                let iterator = BodyChunks(chunks)
                return try await receive(head, DeadlineChunks(deadline: deadline) { try await iterator.next() }.body)
            }
        }
    }

    /// Sends the request and hands its head and body to `receive`, with no deadline of its own.
    private func exchange<Result: Sendable>(
        _ request: HTTPRequest, body: Data?,
        receive: (HTTPResponse, HTTPResponseBody) async throws -> Result
    ) async throws -> Result {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw TransportError.invalidRequest("the request has no absolute URL")
        }
        urlRequest.httpBody = body
        let task = session.dataTask(with: urlRequest)
        let (chunks, chunkSink) = AsyncThrowingStream<Data, any Error>.makeStream()
        defer { task.cancel() }  // a no-op once the task completed; ends it when `receive` stops early
        let head = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                delegate.register(task.taskIdentifier, StreamingTask(head: continuation, chunks: chunkSink))
                // Cancelled before registering: the task was cancelled unstarted, and its completion
                // may have come (and found nothing) already. The flag is set before `onCancel` runs.
                if Task.isCancelled, let unstarted = delegate.remove(task.taskIdentifier) {
                    unstarted.head?.resume(throwing: CancellationError())
                    unstarted.chunks.finish(throwing: CancellationError())
                    return
                }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        let iterator = StreamIterator(chunks.makeAsyncIterator())
        return try await withTaskCancellationHandler {
            try await receive(head, HTTPResponseBody { try await iterator.next() })
        } onCancel: {
            task.cancel()
        }
    }
}

/// The one consumer's iterator over a body, callable from the deadline's task.
private final class BodyChunks: @unchecked Sendable {
    private var iterator: HTTPResponseBody.AsyncIterator

    init(_ body: HTTPResponseBody) { iterator = body.makeAsyncIterator() }

    func next() async throws -> Data? { try await iterator.next() }
}

/// Where a streamed task's head and chunks go.
private struct StreamingTask {
    var head: CheckedContinuation<HTTPResponse, any Error>?
    var chunks: AsyncThrowingStream<Data, any Error>.Continuation
}

/// The one consumer's iterator over a streamed task's chunks.
private final class StreamIterator: @unchecked Sendable {
    private var iterator: AsyncThrowingStream<Data, any Error>.AsyncIterator

    init(_ iterator: AsyncThrowingStream<Data, any Error>.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> Data? {
        do {
            return try await iterator.next()
        } catch let error as URLError where error.code == .cancelled {
            throw CancellationError()
        }
    }
}

/// Declines every redirect, so the 3xx response itself is returned to the caller, and routes the
/// data of every task.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let tasks = Locked<[Int: StreamingTask]>([:])

    func register(_ identifier: Int, _ task: StreamingTask) {
        tasks.withLock { $0[identifier] = task }
    }

    /// Takes a task's entry away (nil when its completion already did).
    func remove(_ identifier: Int) -> StreamingTask? {
        tasks.withLock { $0.removeValue(forKey: identifier) }
    }

    private func withTask<R>(_ identifier: Int, remove: Bool = false, _ body: (inout StreamingTask) -> R) -> R? {
        tasks.withLock { tasks in
            guard var task = tasks[identifier] else { return nil }
            let result = body(&task)
            tasks[identifier] = remove ? nil : task
            return result
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let head = withTask(dataTask.taskIdentifier) { task in
            defer { task.head = nil }
            return task.head
        } ?? nil
        if let http = response as? HTTPURLResponse, let converted = http.httpResponse {
            head?.resume(returning: converted)
            completionHandler(.allow)
        } else {
            head?.resume(throwing: TransportError.notHTTP)
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        _ = withTask(dataTask.taskIdentifier) { task in task.chunks.yield(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let ended = withTask(task.taskIdentifier, remove: true, { $0 }) else { return }
        let failure: (any Error)? = error.map { (($0 as? URLError)?.code == .cancelled) ? CancellationError() : $0 }
        if let head = ended.head {
            head.resume(throwing: failure ?? TransportError.notHTTP)
        }
        ended.chunks.finish(throwing: failure)
    }
}
