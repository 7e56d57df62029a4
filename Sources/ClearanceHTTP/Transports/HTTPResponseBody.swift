import Clearance
import Foundation

/// A response body as it arrives, chunk by chunk: what ``HTTPTransport/stream(_:body:receive:)``
/// hands over. Iterate it once; the connection is released when the `receive` closure returns.
public struct HTTPResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body.
    public typealias Element = Data

    private let nextChunk: @Sendable () async throws -> Data?

    /// A body whose chunks come from `next` (nil at the end).
    public init(next: @escaping @Sendable () async throws -> Data?) {
        self.nextChunk = next
    }

    /// A body already in hand, as one chunk.
    public static func complete(_ data: Data) -> HTTPResponseBody {
        let remaining = Locked<Data?>(data.isEmpty ? nil : data)
        return HTTPResponseBody { remaining.withLock { chunk in defer { chunk = nil }; return chunk } }
    }

    /// Reads the chunks in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let nextChunk: @Sendable () async throws -> Data?
        /// The next chunk; nil at the end of the body.
        public mutating func next() async throws -> Data? { try await nextChunk() }
    }

    /// The iterator (iterate the body once).
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(nextChunk: nextChunk) }
}
