import Foundation

/// A download in progress: a temporary file beside the destination (same directory, so the
/// final rename is atomic), renamed into place only when complete and removed otherwise.
struct PartialFile {
    let temporary: URL
    let destination: URL
    private let handle: FileHandle
    private(set) var written: Int64 = 0

    /// Creates `.<name>.<random>.download` beside `destination` (its directory must exist), new
    /// and with the permissions a new file gets (0644 less the umask).
    init(beside destination: URL) throws(EntitlementError) {
        let directory = destination.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).download")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .unknown(reason: "cannot create a file in \(directory.path) (\(String(cString: strerror(errno))))")
        }
        self.temporary = temporary
        self.destination = destination
        self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
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

    /// Closes the file and renames it over the destination.
    func complete() throws(EntitlementError) {
        do {
            try handle.close()
            if rename(temporary.path, destination.path) != 0 {
                throw CocoaError(.fileWriteUnknown)
            }
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
