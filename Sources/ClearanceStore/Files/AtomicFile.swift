#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Crash-safe file operations for small secret files.
///
/// The file layer of every Clearance secure store (``EncryptedFileStore``, the OAuth2 session
/// file, key files). A write goes to a new temporary file in the same directory (mode 0600, `O_EXCL`), is
/// `fsync`ed, renamed over the destination (atomic on POSIX file systems) and the directory is
/// `fsync`ed: a crash at any moment leaves the old file or the new one, never a mix. The
/// temporary files of processes that died mid-write are removed later. The fsync and rename
/// steps are also offered on their own (``synchronize(_:at:for:syncing:)``,
/// ``moveIntoPlace(_:over:syncing:)``) for files written elsewhere, such as downloads.
package enum AtomicFile {
    /// Files larger than this are not what a store keeps: reading stops and reports corruption.
    package static let maximumSize = 1 << 20

    /// What ``read(_:)`` found.
    package enum ReadOutcome {
        case missing
        case tooLarge
        case contents(Data)
    }

    package static func read(_ path: String) throws(SessionStoreError) -> ReadOutcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            if code == ENOENT { return .missing }
            throw .readFailed(path: path, reason: describe(code))
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw .readFailed(path: path, reason: describe(code))
            }
            if count == 0 { return .contents(data) }
            data.append(contentsOf: buffer[0..<count])
            if data.count > maximumSize { return .tooLarge }
        }
    }

    /// Replaces `path` with `data` atomically and durably; the file gets mode 0600.
    package static func write(_ data: Data, to path: String, syncing: any FileSyncing = SystemFileSyncing()) throws(SessionStoreError) {
        try ensureDirectory(directoryOf(path), for: path)
        let temporary = temporaryPath(for: path)
        try writeNewFile(data, at: temporary, finalPath: path, syncing: syncing)
        try moveIntoPlace(temporary, over: path, syncing: syncing)
    }

    /// Flushes the file open at `descriptor` (being written at `temporary` for `path`) to stable
    /// storage: what a rename over `path` must come after, or a crash can leave `path` empty.
    package static func synchronize(_ descriptor: Int32, at temporary: String, for path: String, syncing: any FileSyncing = SystemFileSyncing()) throws(SessionStoreError) {
        if syncing.synchronize(descriptor, path: temporary) != 0 {
            throw .writeFailed(path: path, reason: "fsync: \(describe(errno))")
        }
    }

    /// Renames the complete, already synchronized `temporary` over `path` (atomic on POSIX file
    /// systems) and flushes the directory, so that the rename itself survives a power loss.
    /// `temporary` is removed when the rename fails.
    package static func moveIntoPlace(_ temporary: String, over path: String, syncing: any FileSyncing = SystemFileSyncing()) throws(SessionStoreError) {
        if syncing.rename(temporary, over: path) != 0 {
            let code = errno
            unlink(temporary)
            throw .writeFailed(path: path, reason: "rename: \(describe(code))")
        }
        try syncDirectory(directoryOf(path), for: path, syncing: syncing)
    }

    /// Creates `path` with `data` only if it does not exist yet; returns false when it already did.
    /// The file appears complete or not at all (written aside, then hard-linked into place).
    package static func createExclusively(_ data: Data, at path: String) throws(SessionStoreError) -> Bool {
        let directory = directoryOf(path)
        try ensureDirectory(directory, for: path)
        let temporary = temporaryPath(for: path)
        try writeNewFile(data, at: temporary, finalPath: path)
        defer { unlink(temporary) }
        if link(temporary, path) != 0 {
            let code = errno
            if code == EEXIST { return false }
            // Some file systems have no hard links: fall back to a checked rename.
            if access(path, F_OK) == 0 { return false }
            if rename(temporary, path) != 0 {
                throw .writeFailed(path: path, reason: "rename: \(describe(errno))")
            }
        }
        try syncDirectory(directory, for: path)
        return true
    }

    /// Removes `path`; a missing file is fine.
    package static func remove(_ path: String) throws(SessionStoreError) {
        if unlink(path) != 0 {
            let code = errno
            if code == ENOENT { return }
            throw .writeFailed(path: path, reason: "unlink: \(describe(code))")
        }
        try syncDirectory(directoryOf(path), for: path)
    }

    /// Renames `path` to `path.corrupt-<UTC timestamp>` (never over an existing file); nil when it cannot.
    package static func moveAside(_ path: String, at date: Date) -> URL? {
        let stamp = timestamp(date)
        for attempt in 0..<100 {
            let candidate = attempt == 0 ? "\(path).corrupt-\(stamp)" : "\(path).corrupt-\(stamp)-\(attempt)"
            if access(candidate, F_OK) == 0 { continue }
            if rename(path, candidate) == 0 {
                try? syncDirectory(directoryOf(path), for: path)
                return URL(fileURLWithPath: candidate)
            }
            return nil
        }
        return nil
    }

    /// Removes temporary files left by processes that died while writing `path` (their pid no longer runs).
    package static func removeStaleTemporaries(of path: String) {
        let directory = directoryOf(path)
        let prefix = ".\(fileName(path))."
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(".tmp") {
            let middle = entry.dropFirst(prefix.count).dropLast(4)
            guard let pid = middle.split(separator: ".").first.flatMap({ Int32($0) }), pid > 0 else { continue }
            if pid == getpid() { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                unlink("\(directory)/\(entry)")
            }
        }
    }

    /// The permission bits of `path`, or nil when it cannot be examined.
    package static func permissions(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode) & 0o7777
    }

    // MARK: - Pieces

    private static func writeNewFile(_ data: Data, at temporary: String, finalPath: String, syncing: any FileSyncing = SystemFileSyncing()) throws(SessionStoreError) {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .writeFailed(path: finalPath, reason: "create \(fileName(temporary)): \(describe(errno))")
        }
        var failure: String?
        if fchmod(fd, 0o600) != 0 { failure = "fchmod: \(describe(errno))" }
        if failure == nil {
            failure = data.withUnsafeBytes { raw -> String? in
                var offset = 0
                while offset < raw.count {
                    let written = posixWrite(fd, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        let code = errno
                        if code == EINTR { continue }
                        return "write: \(describe(code))"
                    }
                    offset += written
                }
                return nil
            }
        }
        if failure == nil && syncing.synchronize(fd, path: temporary) != 0 { failure = "fsync: \(describe(errno))" }
        if close(fd) != 0 && failure == nil { failure = "close: \(describe(errno))" }
        if let failure {
            unlink(temporary)
            throw .writeFailed(path: finalPath, reason: failure)
        }
    }

    private static func ensureDirectory(_ directory: String, for path: String) throws(SessionStoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw .writeFailed(path: path, reason: "\(directory) is not a directory")
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .writeFailed(path: path, reason: "cannot create \(directory): \(error.localizedDescription)")
        }
    }

    private static func syncDirectory(_ directory: String, for path: String, syncing: any FileSyncing = SystemFileSyncing()) throws(SessionStoreError) {
        let fd = open(directory, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // Some file systems refuse fsync on a directory (EINVAL); the rename is still atomic there.
        if syncing.synchronize(fd, path: directory) != 0 {
            let code = errno
            if code != EINVAL && code != EBADF && code != ENOTSUP {
                throw .writeFailed(path: path, reason: "fsync of the directory: \(describe(code))")
            }
        }
    }

    private static func temporaryPath(for path: String) -> String {
        "\(directoryOf(path))/.\(fileName(path)).\(getpid()).\(UInt64.random(in: 0...UInt64.max)).tmp"
    }

    package static func directoryOf(_ path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    private static func fileName(_ path: String) -> String {
        (path as NSString).lastPathComponent
    }

    private static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }

    package static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

// The C functions by their module names: `read` and `write` alone would be AtomicFile's own.
#if canImport(Glibc)
private let posixRead = Glibc.read
private let posixWrite = Glibc.write
#elseif canImport(Musl)
private let posixRead = Musl.read
private let posixWrite = Musl.write
#else
private let posixRead = Darwin.read
private let posixWrite = Darwin.write
#endif
