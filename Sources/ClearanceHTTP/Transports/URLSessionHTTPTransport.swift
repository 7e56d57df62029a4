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
/// ``AuthorizedClient`` decides what travels.
public final class URLSessionHTTPTransport: HTTPTransport {
    private let session: URLSession
    private let delegate = SessionDelegate()
    /// The largest response body read by ``send(_:body:)``; a longer one fails with
    /// ``TransportError/bodyTooLarge(limit:)`` as soon as it is known (as the AsyncHTTPClient
    /// transport's option of the same name).
    public let maximumBodySize: Int

    /// - Parameters:
    ///   - configuration: The session configuration (timeouts, caching, proxies).
    ///   - maximumBodySize: The largest response body ``send(_:body:)`` reads (16 MiB by default).
    public init(configuration: URLSessionConfiguration = .ephemeral, maximumBodySize: Int = 16 << 20) {
        configuration.httpShouldSetCookies = false
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        self.maximumBodySize = max(0, maximumBodySize)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Reads the body as it arrives and stops (cancelling the task) once it passes
    /// ``maximumBodySize``, or at once when `Content-Length` announces more.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let limit = maximumBodySize
        return try await stream(request, body: body) { head, chunks in
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
