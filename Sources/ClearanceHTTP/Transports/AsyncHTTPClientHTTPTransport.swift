import AsyncHTTPClient
import Clearance
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// An ``HTTPTransport`` on AsyncHTTPClient, with redirects turned off.
///
/// **Deadlines.** Every request ends by its deadline, even when the server stalls in the middle
/// of the body: ``send(_:body:)`` within ``timeout`` (60 s by default) from sending to the end
/// of the body; ``stream(_:body:receive:)`` within ``streamTimeout`` (1 h by default) as a
/// whole, and with at most ``idleTimeout`` (60 s by default) between two chunks. The caller then
/// gets ``TransportError/timedOut(endpoint:limit:idle:)`` naming the endpoint, the request is
/// cancelled and its place among the concurrent requests is free at once. (AsyncHTTPClient's
/// own deadline ends when the response head arrives: the body is bounded here.) Give a call a
/// deadline of its own with ``withTimeout(_:streamTimeout:idleTimeout:)``.
public struct AsyncHTTPClientHTTPTransport: HTTPTransport {
    /// A process-wide transport on its own `HTTPClient` (never shut down, like `HTTPClient.shared`).
    public static let shared = AsyncHTTPClientHTTPTransport(client: Self.makeSharedClient(), maximumBodySize: 16 << 20, timeout: .seconds(60))

    private let client: HTTPClient
    private let gates: OriginGates
    /// The largest response body read; a longer one fails with ``TransportError/bodyTooLarge(limit:)``.
    public let maximumBodySize: Int
    /// The deadline for one request, from sending to the end of the body.
    public let timeout: TimeAmount
    /// The deadline for one streamed request (``stream(_:body:receive:)``: a download), the body included.
    public let streamTimeout: TimeAmount
    /// The longest a streamed body may send nothing (``stream(_:body:receive:)``).
    public let idleTimeout: TimeAmount
    /// The clock the deadlines are measured on: `ContinuousClock` unless another was given (a
    /// test's clock, moved by hand).
    public let clock: any Clock<Duration>

    /// Uses `client`, which must be configured with `redirectConfiguration: .disallow`
    /// (see ``makeClient(eventLoopGroup:connectionsPerHost:)``); its lifetime stays the caller's.
    ///
    /// At most `maximumConcurrentRequests` requests to one origin (scheme, host and port) are
    /// handed to the client at once; the rest wait in a cancellable FIFO queue, and requests to
    /// other origins do not wait for them (a stalled server never holds up a healthy one).
    /// (Measured here: 10,000 requests queued inside AsyncHTTPClient's connection pool took over
    /// six minutes in a debug build; gated, 36 s.) A request's deadline starts when it leaves the queue,
    /// and is measured on `clock`.
    public init(
        client: HTTPClient, maximumBodySize: Int = 16 << 20, timeout: TimeAmount = .seconds(60), streamTimeout: TimeAmount = .hours(1),
        idleTimeout: TimeAmount = .seconds(60), maximumConcurrentRequests: Int = 64, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.init(
            client: client, gates: OriginGates(limit: max(1, maximumConcurrentRequests)), maximumBodySize: maximumBodySize,
            timeout: timeout, streamTimeout: streamTimeout, idleTimeout: idleTimeout, clock: clock)
    }

    private init(
        client: HTTPClient, gates: OriginGates, maximumBodySize: Int, timeout: TimeAmount, streamTimeout: TimeAmount, idleTimeout: TimeAmount,
        clock: any Clock<Duration>
    ) {
        self.client = client
        self.gates = gates
        self.maximumBodySize = maximumBodySize
        self.timeout = timeout
        self.streamTimeout = streamTimeout
        self.idleTimeout = idleTimeout
        self.clock = clock
    }

    /// This transport (the same client and the same queues) with other deadlines; the ones not
    /// given stay as they are.
    public func withTimeout(_ timeout: Duration, streamTimeout: Duration? = nil, idleTimeout: Duration? = nil) -> AsyncHTTPClientHTTPTransport {
        AsyncHTTPClientHTTPTransport(
            client: client, gates: gates, maximumBodySize: maximumBodySize, timeout: Self.amount(timeout),
            streamTimeout: streamTimeout.map(Self.amount) ?? self.streamTimeout, idleTimeout: idleTimeout.map(Self.amount) ?? self.idleTimeout,
            clock: clock)
    }

    /// An `HTTPClient` set up for Clearance: redirects off. Shut it down when done.
    public static func makeClient(eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup, connectionsPerHost: Int = 8) -> HTTPClient {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connectionsPerHost
        return HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
    }

    private static func makeSharedClient() -> HTTPClient {
        makeClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
    }

    /// Sends the request and reads the whole body, all within ``timeout``.
    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let outgoing = try Self.outgoing(request, body: body)
        let gate = gates.gate(for: request.url)
        try await gate.enter()
        defer { gate.leave() }
        let deadline = RequestDeadline(url: request.url, limit: Self.duration(timeout), clock: clock)
        let (client, limit, margin) = (client, maximumBodySize, timeout + .seconds(1))
        return try await deadline.whole {
            do {
                // AsyncHTTPClient's deadline ends with the head; the margin lets ours speak first.
                let response = try await client.execute(outgoing, timeout: margin)
                let buffer = try await response.body.collect(upTo: limit)
                return (Self.head(of: response), Data(buffer.readableBytesView))
            } catch is NIOTooManyBytesError {
                throw TransportError.bodyTooLarge(limit: limit)
            } catch let error as HTTPClientError where error == .deadlineExceeded {
                throw deadline.timedOut
            }
        }
    }

    /// Streams the body as AsyncHTTPClient delivers it, with no size limit, within
    /// ``streamTimeout`` as a whole and ``idleTimeout`` between chunks.
    public func stream<Result: Sendable>(
        _ request: HTTPRequest, body: Data?,
        receive: (HTTPResponse, HTTPResponseBody) async throws -> Result
    ) async throws -> Result {
        let outgoing = try Self.outgoing(request, body: body)
        let gate = gates.gate(for: request.url)
        try await gate.enter()
        defer { gate.leave() }
        let deadline = RequestDeadline(url: request.url, limit: Self.duration(streamTimeout), idle: Self.duration(idleTimeout), clock: clock)
        return try await deadline.structured {
            let response: HTTPClientResponse
            do {
                response = try await client.execute(outgoing, timeout: streamTimeout + .seconds(1))
            } catch let error as HTTPClientError where error == .deadlineExceeded {
                throw deadline.timedOut
            }
            let iterator = BodyIterator(response.body.makeAsyncIterator())
            let chunks = DeadlineChunks(deadline: deadline) { try await iterator.next() }
            return try await receive(Self.head(of: response), chunks.body)
        }
    }

    static func duration(_ amount: TimeAmount) -> Duration { .nanoseconds(amount.nanoseconds) }

    static func amount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    private static func outgoing(_ request: HTTPRequest, body: Data?) throws -> HTTPClientRequest {
        guard let url = request.url else { throw TransportError.invalidRequest("the request has no absolute URL") }
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        return outgoing
    }

    private static func head(of response: HTTPClientResponse) -> HTTPResponse {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return HTTPResponse(status: .init(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase), headerFields: fields)
    }
}

/// The one consumer's iterator over a streamed AsyncHTTPClient body.
private final class BodyIterator: @unchecked Sendable {
    private var iterator: HTTPClientResponse.Body.AsyncIterator

    init(_ iterator: HTTPClientResponse.Body.AsyncIterator) { self.iterator = iterator }

    func next() async throws -> Data? {
        guard let buffer = try await iterator.next() else { return nil }
        return Data(buffer.readableBytesView)
    }
}
