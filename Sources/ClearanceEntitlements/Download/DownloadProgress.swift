/// How far a download is: the bytes received and, when the server said, how many to expect.
public struct DownloadProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes written so far.
    public var bytesReceived: Int64
    /// The `Content-Length` of the answer, when it had one.
    public var expectedBytes: Int64?

    /// Creates a progress value.
    public init(bytesReceived: Int64, expectedBytes: Int64?) {
        self.bytesReceived = bytesReceived
        self.expectedBytes = expectedBytes
    }

    /// `bytesReceived / expectedBytes`, when the total is known.
    public var fraction: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return Double(bytesReceived) / Double(expectedBytes)
    }

    public var description: String {
        "\(bytesReceived)\(expectedBytes.map { " of \($0)" } ?? "") bytes"
    }
}
