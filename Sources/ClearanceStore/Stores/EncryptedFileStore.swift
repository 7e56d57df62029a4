import Clearance
import Crypto
import Foundation

/// A ``SecureStore`` for Linux, servers and command-line tools: one file, AES-256-GCM encrypted
/// (swift-crypto), mode 0600, written crash-safely. It keeps any `Codable` value.
///
/// - **Writes** go to a temporary file in the same directory, are `fsync`ed, renamed over the
///   file and the directory is `fsync`ed: a crash or `SIGKILL` at any moment leaves the old
///   value or the new one, never a mix.
/// - **A file that cannot be read** (corrupt, sealed with another key, of another format or an
///   unknown format version) is moved aside to `<file>.corrupt-<UTC timestamp>`, never
///   deleted, and ``load()`` throws the cause; the caller then starts from nothing and reports it.
/// - The key comes from a ``SessionStoreKey``: a key file, an environment variable, or generated.
///   One key may seal several files.
/// - The ``format`` name is authenticated with the ciphertext: a file written for one purpose
///   never opens as another.
///
/// Operations in one process are serialized; processes sharing the file see whole values (the
/// last writer wins).
///
/// ```swift
/// struct CustomerToken: Codable, Sendable { var token: String; var expiresAt: Date }
/// let store = EncryptedFileStore<CustomerToken>(
///     fileURL: SecureStoreLocation.defaultDirectory().appending(path: "customer-token.json"),
///     key: try .loadOrCreate(file: keyFile), format: "com.example.customer-token")
/// try await store.save(CustomerToken(token: jwt, expiresAt: expiry))
/// ```
public final class EncryptedFileStore<Value: Codable & Sendable>: SecureStore {
    /// The file.
    public let fileURL: URL
    /// The envelope's format name (authenticated): `clearance.oauth2-session`, `clearance.entitlements`, or the app's own.
    public let format: String
    private let key: SessionStoreKey
    private let now: @Sendable () -> Date
    /// Serializes this process's reads and writes of the file; counts the writes made.
    private let serial = Locked<UInt64>(0)

    /// - Parameters:
    ///   - fileURL: The file; its directory is created (mode 0700) on the first save.
    ///   - key: The encryption key.
    ///   - format: What the file holds, a stable name; a file of another format is refused as corrupt.
    ///   - now: The clock for naming moved-aside files.
    public init(fileURL: URL, key: SessionStoreKey, format: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.fileURL = fileURL
        self.format = format
        self.key = key
        self.now = now
        AtomicFile.removeStaleTemporaries(of: fileURL.path)
    }

    public func load() async throws(SessionStoreError) -> Value? {
        try serial.withLock { _ throws(SessionStoreError) -> Value? in try loadLocked() }
    }

    public func save(_ value: Value) async throws(SessionStoreError) {
        let data = try seal(value)
        try serial.withLock { writes throws(SessionStoreError) in
            try AtomicFile.write(data, to: fileURL.path)
            writes += 1
        }
    }

    public func clear() async throws(SessionStoreError) {
        try serial.withLock { writes throws(SessionStoreError) in
            try AtomicFile.remove(fileURL.path)
            writes += 1
        }
    }

    /// Seals `value` into the file's bytes.
    private func seal(_ value: Value) throws(SessionStoreError) -> Data {
        let plaintext: Data
        do {
            plaintext = try JSONEncoder().encode(value)
        } catch {
            throw .writeFailed(path: fileURL.path, reason: "cannot seal the value: \(error)")
        }
        return try Self.seal(plaintext: plaintext, key: key, format: format, path: fileURL.path)
    }

    /// The file's bytes for an encoded value: the envelope around the AES-GCM box.
    package static func seal(plaintext: Data, key: SessionStoreKey, format: String, path: String) throws(SessionStoreError) -> Data {
        do {
            var envelope = SealedFile(format: format, version: SealedFile.currentVersion, keyID: key.identifier, sealed: "")
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
            throw .writeFailed(path: path, reason: "cannot seal the value: \(error)")
        }
    }

    private func loadLocked() throws(SessionStoreError) -> Value? {
        let data: Data
        switch try AtomicFile.read(fileURL.path) {
        case .missing:
            return nil
        case .tooLarge:
            throw .corrupt(reason: "the file is larger than \(AtomicFile.maximumSize) bytes", movedAside: moveAside())
        case .contents(let contents):
            data = contents
        }
        return try Self.open(data, key: key, format: format, moveAside: moveAside)
    }

    /// The value sealed in a file's bytes; `moveAside` is called (once) when they are refused.
    package static func open(_ data: Data, key: SessionStoreKey, format: String, moveAside: () -> URL?) throws(SessionStoreError) -> Value {
        guard let envelope = try? JSONDecoder().decode(SealedFile.self, from: data), envelope.format == format else {
            throw .corrupt(reason: "the file is not a \(format) file", movedAside: moveAside())
        }
        guard envelope.version == SealedFile.currentVersion else {
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
        guard let value = try? JSONDecoder().decode(Value.self, from: plaintext) else {
            throw .corrupt(reason: "the decrypted value cannot be decoded", movedAside: moveAside())
        }
        return value
    }

    private func moveAside() -> URL? {
        AtomicFile.moveAside(fileURL.path, at: now())
    }
}
