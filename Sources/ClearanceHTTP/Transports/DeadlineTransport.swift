import Foundation
import HTTPTypes

/// Wraps any transport so that every request ends by a deadline of its own: ``send(_:body:)``
/// as a whole (head and body), and every wait of ``stream(_:body:receive:)`` (the head and
/// each chunk) under ``streamTimeout`` and ``idleTimeout``. When the time is up the caller gets
/// ``TransportError/timedOut(endpoint:limit:idle:)`` and the request is cancelled (a `send` at
/// once; a stream once the base transport has unwound, which the built-in ones do at once).
///
/// The way to give one session, provider or call a shorter (or longer) deadline than its
/// transport's: `AsyncHTTPClientHTTPTransport.shared.withTimeout(.seconds(5))`. The shorter of
/// the two deadlines wins.
public struct DeadlineTransport: HTTPTransport {
    /// The transport that sends.
    public let base: any HTTPTransport
    /// The deadline of one ``send(_:body:)``, from sending to the end of the body.
    public let timeout: Duration
    /// The deadline of one ``stream(_:body:receive:)``, the body included.
    public let streamTimeout: Duration
    /// The longest a streamed body may send nothing.
    public let idleTimeout: Duration
    /// The clock the deadlines are measured on.
    public let clock: any Clock<Duration>

    /// - Parameters:
    ///   - base: The transport that sends.
    ///   - timeout: The deadline of one request, head and body.
    ///   - streamTimeout: The deadline of one streamed request (a download); `timeout` by default.
    ///   - idleTimeout: The longest a streamed body may send nothing; `timeout` by default.
    ///   - clock: The clock the deadlines are measured on (`ContinuousClock` by default).
    public init(
        _ base: any HTTPTransport, timeout: Duration, streamTimeout: Duration? = nil, idleTimeout: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.base = base
        self.timeout = timeout
        self.streamTimeout = streamTimeout ?? timeout
        self.idleTimeout = idleTimeout ?? timeout
        self.clock = clock
    }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let base = base
        return try await RequestDeadline(url: request.url, limit: timeout, clock: clock).whole {
            let (response, data) = try await base.send(request, body: body)
            return (response, data)
        }
    }

    public func stream<Result: Sendable>(
        _ request: HTTPRequest, body: Data?,
        receive: (HTTPResponse, HTTPResponseBody) async throws -> Result
    ) async throws -> Result {
        let deadline = RequestDeadline(url: request.url, limit: streamTimeout, idle: idleTimeout, clock: clock)
        return try await deadline.structured {
            try await base.stream(request, body: body) { head, chunks in
                let iterator = SharedChunkIterator(chunks)
                let timed = DeadlineChunks(deadline: deadline) { try await iterator.next() }
                return try await receive(head, timed.body)
            }
        }
    }
}

extension HTTPTransport {
    /// This transport with a deadline of `timeout` per request (see ``DeadlineTransport``),
    /// measured on `clock`.
    public func withTimeout(
        _ timeout: Duration, streamTimeout: Duration? = nil, idleTimeout: Duration? = nil, clock: any Clock<Duration> = ContinuousClock()
    ) -> DeadlineTransport {
        DeadlineTransport(self, timeout: timeout, streamTimeout: streamTimeout, idleTimeout: idleTimeout, clock: clock)
    }
}

/// The one consumer's iterator over a body, callable from the deadline's task.
private final class SharedChunkIterator: @unchecked Sendable {
    private var iterator: HTTPResponseBody.AsyncIterator

    init(_ body: HTTPResponseBody) { iterator = body.makeAsyncIterator() }

    func next() async throws -> Data? { try await iterator.next() }
}
