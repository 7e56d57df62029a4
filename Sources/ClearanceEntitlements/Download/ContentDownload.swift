import Clearance
import Foundation

/// A download started by ``ContentDownloader/start(_:from:to:)``: its progress as an
/// `AsyncSequence`, its result, and a way to cancel it.
public final class ContentDownload: Sendable {
    /// The product being fetched.
    public let product: String
    /// Where the file goes once complete.
    public let destination: URL
    private let broadcaster = Broadcaster<DownloadProgress>(replaying: DownloadProgress(bytesReceived: 0, expectedBytes: nil))
    private let task: Task<Int64, any Error>

    init(product: String, destination: URL, run: @escaping @Sendable (@escaping @Sendable (DownloadProgress) -> Void) async throws(EntitlementError) -> Int64) {
        self.product = product
        self.destination = destination
        let broadcaster = broadcaster
        task = Task {
            defer { broadcaster.finish() }
            return try await run { broadcaster.send($0) }
        }
    }

    /// The progress: the latest value first, then every change, ending when the download ends.
    public var progress: AsyncStream<DownloadProgress> { broadcaster.subscribe() }

    /// The bytes written once the file is in place.
    /// - Throws: the download's ``EntitlementError`` (a cancelled download is a `networkFailure`
    ///   whose ``EntitlementError/isCancellation`` is true); no file is left behind.
    @discardableResult
    public func result() async throws(EntitlementError) -> Int64 {
        do {
            return try await task.value
        } catch let error as EntitlementError {
            throw error
        } catch {
            throw .networkFailure(underlying: CancellationError())
        }
    }

    /// Cancels the download; the temporary file is removed and the destination left as it was.
    public func cancel() {
        task.cancel()
    }
}
