import Clearance
import ClearanceEntitlements
import ClearanceStore
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A download is made durable as `AtomicFile` makes a store durable: the partial file is
/// `fsync`ed (complete, through the descriptor that wrote it) before the rename, and the directory
/// after it. The calls are watched through the `FileSyncing` seam, which makes them for real.
@Suite struct DurableDownloadTests {
    /// Records each call in order with what it was made on, then makes it (or fails it with `EIO`).
    final class RecordingFileSyncing: FileSyncing {
        enum Call: Equatable, CustomStringConvertible {
            /// An fsync: the path, and the size of what the descriptor held at that moment.
            case fsync(path: String, bytes: Int64)
            case rename(from: String, to: String)

            var description: String {
                switch self {
                case .fsync(let path, let bytes): "fsync(\((path as NSString).lastPathComponent), \(bytes) bytes)"
                case .rename(let from, let to): "rename(\((from as NSString).lastPathComponent) → \((to as NSString).lastPathComponent))"
                }
            }
        }

        private let log = Locked<[Call]>([])
        private let failingFileSync: Bool
        private let system = SystemFileSyncing()

        init(failingFileSync: Bool = false) { self.failingFileSync = failingFileSync }

        var calls: [Call] { log.withLock { $0 } }

        func synchronize(_ descriptor: Int32, path: String) -> Int32 {
            var info = stat()
            let bytes: Int64 = fstat(descriptor, &info) == 0 ? Int64(info.st_size) : -1
            log.withLock { $0.append(.fsync(path: path, bytes: bytes)) }
            if failingFileSync && (info.st_mode & S_IFMT) == S_IFREG {
                errno = EIO
                return -1
            }
            return system.synchronize(descriptor, path: path)
        }

        func rename(_ source: String, over destination: String) -> Int32 {
            log.withLock { $0.append(.rename(from: source, to: destination)) }
            return system.rename(source, over: destination)
        }
    }

    static let edition = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    static func transport() -> ScriptedTransport {
        ScriptedTransport { _, _ in
            .respond(status: 200, headers: [.contentLength: "\(edition.count)"],
                     chunks: stride(from: 0, to: edition.count, by: 16_384).map { edition[$0..<min($0 + 16_384, edition.count)] })
        }
    }

    @Test func thePartialFileIsSyncedBeforeTheRenameAndTheDirectoryAfterIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let destination = directory.file("issue-1.zip")
        let syncing = RecordingFileSyncing()
        let downloader = ContentDownloader(provider: ContentDownloaderTests.CountingProvider(), transport: Self.transport(), syncing: syncing)
        let bytes = try await downloader.download("issue-1", from: URL(string: "https://cdn.example.com/issue-1.zip")!, to: destination)
        #expect(bytes == Int64(Self.edition.count))
        #expect(try Data(contentsOf: destination) == Self.edition)

        let calls = syncing.calls
        #expect(calls.count == 3, "\(calls)")
        guard calls.count == 3, case .fsync(let synced, let syncedBytes) = calls[0], case .rename(let from, let to) = calls[1],
              case .fsync(let directoryPath, _) = calls[2] else {
            Issue.record("expected fsync(file), rename, fsync(directory); got \(calls)")
            return
        }
        let name = (synced as NSString).lastPathComponent
        #expect(name.hasPrefix(".issue-1.zip.") && name.hasSuffix(".download"), "the partial file: \(name)")
        #expect(syncedBytes == Int64(Self.edition.count), "the fsync came after the last byte was written")
        #expect(from == synced && to == destination.path)
        #expect(directoryPath == destination.deletingLastPathComponent().path)
        #expect(directory.contents() == ["issue-1.zip"])
    }

    @Test func aFailedFsyncLeavesTheDestinationAsItWasAndNoPartialFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let destination = directory.file("issue-1.zip")
        try Data("the earlier edition".utf8).write(to: destination)
        let syncing = RecordingFileSyncing(failingFileSync: true)
        let downloader = ContentDownloader(provider: ContentDownloaderTests.CountingProvider(), transport: Self.transport(), syncing: syncing)
        do {
            try await downloader.download("issue-1", from: URL(string: "https://cdn.example.com/issue-1.zip")!, to: destination)
            Issue.record("the download succeeded although its file could not be made durable")
        } catch {
            #expect(error.code == .unknown)
            #expect(error.message.contains("cannot move the download into"), "\(error.message)")
            #expect("\(error.underlying.map { "\($0)" } ?? "")".contains("fsync"), "\(String(describing: error.underlying))")
        }
        #expect(try Data(contentsOf: destination) == Data("the earlier edition".utf8))
        #expect(directory.contents() == ["issue-1.zip"])
        #expect(!syncing.calls.contains { if case .rename = $0 { true } else { false } }, "no rename after a failed fsync: \(syncing.calls)")
    }
}
