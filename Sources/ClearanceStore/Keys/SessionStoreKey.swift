import Crypto
import Foundation

/// The 256-bit AES key of an ``EncryptedFileStore`` (and of OAuth2's session file), from a key
/// file, an environment variable, or made fresh.
///
/// Key files and variables hold the key as base64 (44 characters; surrounding whitespace is
/// ignored). A key file readable by anyone but its owner is refused, as `ssh` refuses such a
/// private key. The key's ``identifier`` (a keyed hash, not the key) is stored beside the
/// ciphertext so that a wrong key is told apart from a corrupt file.
public struct SessionStoreKey: Sendable {
    let key: SymmetricKey
    /// A non-secret fingerprint of the key: 16 hex digits of HMAC-SHA256(key, "clearance session store key id").
    public let identifier: String

    /// Uses `key`, which must be 256 bits.
    /// - Throws: ``SessionStoreError/keyUnavailable(reason:)`` for another size.
    public init(_ key: SymmetricKey) throws(SessionStoreError) {
        guard key.bitCount == 256 else {
            throw .keyUnavailable(reason: "the key has \(key.bitCount) bits; AES-256-GCM needs 256")
        }
        self.key = key
        let mac = HMAC<SHA256>.authenticationCode(for: Data("clearance session store key id".utf8), using: key)
        self.identifier = Data(mac).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// A key from its base64 text.
    /// - Throws: ``SessionStoreError/keyUnavailable(reason:)`` unless it is base64 of exactly 32 bytes.
    public init(base64: String) throws(SessionStoreError) {
        guard let data = Data(base64Encoded: base64.trimmingCharacters(in: .whitespacesAndNewlines)), data.count == 32 else {
            throw .keyUnavailable(reason: "the key is not base64 of 32 bytes")
        }
        try self.init(SymmetricKey(data: data))
    }

    /// A fresh random key.
    public static func generate() -> SessionStoreKey {
        // A 256-bit key always passes the size check.
        try! SessionStoreKey(SymmetricKey(size: .bits256))
    }

    /// The key in the environment variable `name` (default `CLEARANCE_SESSION_KEY`).
    public static func environment(_ name: String = "CLEARANCE_SESSION_KEY", in environment: [String: String] = ProcessInfo.processInfo.environment) throws(SessionStoreError) -> SessionStoreKey {
        guard let value = environment[name], !value.isEmpty else {
            throw .keyUnavailable(reason: "the environment variable \(name) is not set")
        }
        do {
            return try SessionStoreKey(base64: value)
        } catch {
            throw .keyUnavailable(reason: "the environment variable \(name) is not base64 of 32 bytes")
        }
    }

    /// The key in the file at `url`.
    /// - Throws: ``SessionStoreError/insecureKeyFile(path:mode:)`` when group or others may read
    ///   or write it; ``SessionStoreError/keyUnavailable(reason:)`` when it is missing or malformed.
    public static func file(_ url: URL) throws(SessionStoreError) -> SessionStoreKey {
        let path = url.path
        guard case .contents(let data) = try AtomicFile.read(path) else {
            throw .keyUnavailable(reason: "the key file \(path) does not exist or is too large")
        }
        if let mode = AtomicFile.permissions(of: path), mode & 0o077 != 0 {
            throw .insecureKeyFile(path: path, mode: mode)
        }
        do {
            return try SessionStoreKey(base64: String(decoding: data, as: UTF8.self))
        } catch {
            throw .keyUnavailable(reason: "the key file \(path) does not hold base64 of 32 bytes")
        }
    }

    /// The key in the file at `url`, creating the file (mode 0600, its directory 0700) with a
    /// fresh key when it does not exist. Two processes racing to create it end up with the same key.
    public static func loadOrCreate(file url: URL) throws(SessionStoreError) -> SessionStoreKey {
        if case .missing = try AtomicFile.read(url.path) {
            let fresh = generate()
            _ = try AtomicFile.createExclusively(Data((fresh.base64 + "\n").utf8), at: url.path)
        }
        return try file(url)
    }

    /// The key as base64, for writing a key file or setting the variable. Secret.
    public var base64: String {
        key.withUnsafeBytes { Data($0).base64EncodedString() }
    }
}

extension SessionStoreKey: CustomStringConvertible {
    public var description: String { "SessionStoreKey(id: \(identifier))" }
}
