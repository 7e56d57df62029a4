import ClearanceStore
import Foundation

/// A download in progress: a temporary file beside the destination (same directory, so the
/// final rename is atomic), renamed into place only when complete and removed otherwise.
/// Completing it is durable, as ``AtomicFile`` does it: the file is `fsync`ed before the rename
/// and the directory after it, so a power loss never leaves a "complete" file that is empty.
struct PartialFile {
    let temporary: URL
    let destination: URL
    private let handle: FileHandle
    private let syncing: any FileSyncing
    private(set) var written: Int64 = 0

    /// Creates `.<name>.<random>.download` beside `destination` (its directory must exist), new
    /// and with the permissions a new file gets (0644 less the umask).
    init(beside destination: URL, syncing: any FileSyncing) throws(EntitlementError) {
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).download")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .unknown(reason: "cannot create a file in \(directory.path) (\(String(cString: strerror(errno))))")
        }
        self.temporary = temporary
        self.destination = destination
        self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        self.syncing = syncing
    }

    /// Appends `chunk`.
    mutating func write(_ chunk: Data) throws(EntitlementError) {
        do {
            try handle.write(contentsOf: chunk)
        } catch {
            throw .unknown(reason: "cannot write \(temporary.lastPathComponent)", underlying: error)
        }
        written += Int64(chunk.count)
    }

    /// Flushes the file to stable storage, closes it, renames it over the destination and
    /// flushes the directory.
    func complete() throws(EntitlementError) {
        do {
            try AtomicFile.synchronize(handle.fileDescriptor, at: temporary.path, for: destination.path, syncing: syncing)
            try handle.close()
            try AtomicFile.moveIntoPlace(temporary.path, over: destination.path, syncing: syncing)
        } catch {
            discard()
            throw .unknown(reason: "cannot move the download into \(destination.path)", underlying: error)
        }
    }

    /// Closes and removes the temporary file (the destination is untouched).
    func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}
