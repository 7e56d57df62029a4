import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// An ``HTTPTransport`` on AsyncHTTPClient, with redirects turned off.
public struct AsyncHTTPClientHTTPTransport: HTTPTransport {
    /// A process-wide transport on its own `HTTPClient` (never shut down, like `HTTPClient.shared`).
    public static let shared = AsyncHTTPClientHTTPTransport(client: Self.makeSharedClient(), maximumBodySize: 16 << 20, timeout: .seconds(60))

    private let client: HTTPClient
    private let gate: AsyncGate
    /// The largest response body read; a longer one fails with ``TransportError/bodyTooLarge(limit:)``.
    public let maximumBodySize: Int
    /// The deadline for one request, from sending to the end of the body.
    public let timeout: TimeAmount
    /// The deadline for one streamed request (``stream(_:body:receive:)``: a download), the body included.
    public let streamTimeout: TimeAmount

    /// Uses `client`, which must be configured with `redirectConfiguration: .disallow`
    /// (see ``makeClient(eventLoopGroup:connectionsPerHost:)``); its lifetime stays the caller's.
    ///
    /// At most `maximumConcurrentRequests` requests are handed to the client at once; the rest
    /// wait in a cancellable FIFO queue. (Measured here: 10,000 requests queued inside
    /// AsyncHTTPClient's connection pool took over six minutes in a debug build; gated, 36 s.)
    public init(client: HTTPClient, maximumBodySize: Int = 16 << 20, timeout: TimeAmount = .seconds(60), streamTimeout: TimeAmount = .hours(1), maximumConcurrentRequests: Int = 64) {
        self.client = client
        self.gate = AsyncGate(limit: max(1, maximumConcurrentRequests))
        self.maximumBodySize = maximumBodySize
        self.timeout = timeout
        self.streamTimeout = streamTimeout
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

    public func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let outgoing = try Self.outgoing(request, body: body)
        try await gate.enter()
        defer { gate.leave() }
        let response = try await client.execute(outgoing, timeout: timeout)
        let buffer: ByteBuffer
        do {
            buffer = try await response.body.collect(upTo: maximumBodySize)
        } catch is NIOTooManyBytesError {
            throw TransportError.bodyTooLarge(limit: maximumBodySize)
        }
        return (Self.head(of: response), Data(buffer.readableBytesView))
    }

    /// Streams the body as AsyncHTTPClient delivers it, with no size limit, under the
    /// ``streamTimeout`` deadline (the body included).
    public func stream<Result: Sendable>(
        _ request: HTTPRequest, body: Data?,
        receive: (HTTPResponse, HTTPResponseBody) async throws -> Result
    ) async throws -> Result {
        let outgoing = try Self.outgoing(request, body: body)
        try await gate.enter()
        defer { gate.leave() }
        let response = try await client.execute(outgoing, timeout: streamTimeout)
        let chunks = BodyIterator(response.body.makeAsyncIterator())
        return try await receive(Self.head(of: response), HTTPResponseBody { try await chunks.next() })
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
