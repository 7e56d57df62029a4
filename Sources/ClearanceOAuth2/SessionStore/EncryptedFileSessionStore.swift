import Clearance
import Crypto
import Foundation

/// A session store for Linux, servers and command-line tools: one file, AES-256-GCM encrypted
/// (swift-crypto), mode 0600, written crash-safely.
///
/// - **Writes** go to a temporary file in the same directory, are `fsync`ed, renamed over the
///   session file and the directory is `fsync`ed: a crash or `SIGKILL` at any moment leaves the
///   old session or the new one, never a mix.
/// - **A file that cannot be read** (corrupt, sealed with another key, an unknown format
///   version) is moved aside to `<file>.corrupt-<UTC timestamp>`, never deleted, and
///   ``load()`` throws the cause; the session then starts signed out and reports it.
/// - The key comes from a ``SessionStoreKey``: a key file, an environment variable, or generated.
///
/// Operations in one process are serialized; processes sharing the file see whole sessions
/// (the last writer wins).
public final class EncryptedFileSessionStore: SessionStore {
    /// The session file.
    public let fileURL: URL
    private let key: SessionStoreKey
    private let now: @Sendable () -> Date
    private let serial = Locked(())

    /// - Parameters:
    ///   - fileURL: The session file; its directory is created (mode 0700) on the first save.
    ///   - key: The encryption key.
    ///   - now: The clock for naming moved-aside files.
    public init(fileURL: URL, key: SessionStoreKey, now: @escaping @Sendable () -> Date = { Date() }) {
        self.fileURL = fileURL
        self.key = key
        self.now = now
        AtomicFile.removeStaleTemporaries(of: fileURL.path)
    }

    /// The directory for Clearance's files: `$XDG_CONFIG_HOME/clearance` or `~/.config/clearance`
    /// (on Apple platforms, `~/Library/Application Support/Clearance`).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        #if canImport(Darwin)
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent("Library/Application Support/Clearance", isDirectory: true)
        #else
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("clearance", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/clearance", isDirectory: true)
        #endif
    }

    public func load() async throws(SessionStoreError) -> StoredSession? {
        try serial.withLock { _ throws(SessionStoreError) -> StoredSession? in try loadLocked() }
    }

    public func save(_ session: StoredSession) async throws(SessionStoreError) {
        let data = try seal(session)
        try serial.withLock { _ throws(SessionStoreError) in try AtomicFile.write(data, to: fileURL.path) }
    }

    public func clear() async throws(SessionStoreError) {
        try serial.withLock { _ throws(SessionStoreError) in try AtomicFile.remove(fileURL.path) }
    }

    /// Seals `session` into the file's bytes.
    func seal(_ session: StoredSession) throws(SessionStoreError) -> Data {
        let path = fileURL.path
        do {
            let plaintext = try JSONEncoder().encode(session)
            var envelope = SealedSessionFile(format: SealedSessionFile.format, version: SealedSessionFile.currentVersion, keyID: key.identifier, sealed: "")
            let box = try AES.GCM.seal(plaintext, using: key.key, authenticating: envelope.authenticatedData)
            guard let combined = box.combined else {
                throw SessionStoreError.writeFailed(path: path, reason: "AES-GCM produced no combined box")
            }
            envelope.sealed = combined.base64EncodedString()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try encoder.encode(envelope)
        } catch let error as SessionStoreError {
            throw error
        } catch {
            throw .writeFailed(path: path, reason: "cannot seal the session: \(error)")
        }
    }

    private func loadLocked() throws(SessionStoreError) -> StoredSession? {
        let path = fileURL.path
        let data: Data
        switch try AtomicFile.read(path) {
        case .missing:
            return nil
        case .tooLarge:
            throw .corrupt(reason: "the file is larger than \(AtomicFile.maximumSize) bytes", movedAside: moveAside())
        case .contents(let contents):
            data = contents
        }
        guard let envelope = try? JSONDecoder().decode(SealedSessionFile.self, from: data), envelope.format == SealedSessionFile.format else {
            throw .corrupt(reason: "the file is not a Clearance session file", movedAside: moveAside())
        }
        guard envelope.version == SealedSessionFile.currentVersion else {
            throw .unsupportedFormat(version: envelope.version, movedAside: moveAside())
        }
        guard envelope.keyID == key.identifier else {
            throw .wrongKey(movedAside: moveAside())
        }
        guard let combined = Data(base64Encoded: envelope.sealed), let box = try? AES.GCM.SealedBox(combined: combined) else {
            throw .corrupt(reason: "the sealed box is malformed", movedAside: moveAside())
        }
        guard let plaintext = try? AES.GCM.open(box, using: key.key, authenticating: envelope.authenticatedData) else {
            throw .corrupt(reason: "the authentication tag does not verify", movedAside: moveAside())
        }
        guard let session = try? JSONDecoder().decode(StoredSession.self, from: plaintext) else {
            throw .corrupt(reason: "the decrypted session cannot be decoded", movedAside: moveAside())
        }
        return session
    }

    private func moveAside() -> URL? {
        AtomicFile.moveAside(fileURL.path, at: now())
    }
}
