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
/// ``AuthorizedClient`` decides what travels.
public final class URLSessionHTTPTransport: HTTPTransport {
    private let session: URLSession
    private let delegate = SessionDelegate()

    /// - Parameter configuration: The session configuration (timeouts, caching, proxies).
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        configuration.httpShouldSetCookies = false
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw TransportError.invalidRequest("the request has no absolute URL")
        }
        urlRequest.httpBody = body
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(HTTPResponse, Data), any Error>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: (error as? URLError)?.code == .cancelled ? CancellationError() : error)
                        return
                    }
                    guard let response = response as? HTTPURLResponse, let head = response.httpResponse else {
                        continuation.resume(throwing: TransportError.notHTTP)
                        return
                    }
                    continuation.resume(returning: (head, data ?? Data()))
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

extension URLSessionHTTPTransport {
    /// Streams the body as the session's data delegate receives it (URLSession pushes: chunks
    /// wait in memory when `receive` reads slower than the network delivers).
    public func stream<Result: Sendable>(
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

/// Holds the running task so a cancellation handler can reach it.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    func set(_ task: URLSessionTask) {
        lock.lock()
        self.task = task
        let cancelNow = cancelled
        lock.unlock()
        if cancelNow { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}

/// Declines every redirect, so the 3xx response itself is returned to the caller, and routes the
/// data of streamed tasks (tasks made with a completion handler never reach these methods).
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let streaming = NSLock()
    private var tasks: [Int: StreamingTask] = [:]

    func register(_ identifier: Int, _ task: StreamingTask) {
        streaming.lock()
        tasks[identifier] = task
        streaming.unlock()
    }

    private func withTask<R>(_ identifier: Int, remove: Bool = false, _ body: (inout StreamingTask) -> R) -> R? {
        streaming.lock()
        defer { streaming.unlock() }
        guard var task = tasks[identifier] else { return nil }
        let result = body(&task)
        tasks[identifier] = remove ? nil : task
        return result
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
