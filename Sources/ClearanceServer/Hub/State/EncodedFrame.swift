import NIOCore

/// A frame's text, encoded once into one buffer that every connection it is delivered to
/// writes from: an event to 10,000 subscribers costs one copy of its bytes, not 10,000 (NIO's
/// WebSocket encoder writes the frame header apart and the shared payload as it is).
public struct EncodedFrame: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The frame's UTF-8 bytes; shared, never modified.
    public let bytes: ByteBuffer

    /// Encodes `text`.
    public init(_ text: String) {
        bytes = ByteBuffer(string: text)
    }

    public init(stringLiteral text: String) {
        self.init(text)
    }

    /// The frame's text.
    public var text: String { String(buffer: bytes) }

    public var description: String { text }
}
