import Clearance
import ClearanceStore
import Foundation

/// A session store for Linux, servers and command-line tools: an `EncryptedFileStore` of
/// ``StoredSession``s (format `clearance.oauth2-session`): one file, AES-256-GCM encrypted
/// (swift-crypto), mode 0600, written crash-safely.
///
/// - **Writes** go to a temporary file in the same directory, are `fsync`ed, renamed over the
///   session file and the directory is `fsync`ed: a crash or `SIGKILL` at any moment leaves the
///   old session or the new one, never a mix.
/// - **A file that cannot be read** (corrupt, sealed with another key, an unknown format
///   version) is moved aside to `<file>.corrupt-<UTC timestamp>`, never deleted, and
///   `EncryptedFileStore.load` throws the cause; the session then starts signed out and
///   reports it.
/// - The key comes from a `SessionStoreKey`: a key file, an environment variable, or generated.
///
/// Operations in one process are serialized; processes sharing the file see whole sessions
/// (the last writer wins).
public typealias EncryptedFileSessionStore = EncryptedFileStore<StoredSession>

extension EncryptedFileStore: SessionStore where Value == StoredSession {
    /// The envelope format of OAuth2 session files.
    public static var format: String { "clearance.oauth2-session" }

    /// A session file.
    ///
    /// - Parameters:
    ///   - fileURL: The session file; its directory is created (mode 0700) on the first save.
    ///   - key: The encryption key.
    ///   - now: The clock for naming moved-aside files.
    public convenience init(fileURL: URL, key: SessionStoreKey, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(fileURL: fileURL, key: key, format: Self.format, now: now)
    }

    /// The directory for Clearance's files (`SecureStoreLocation.defaultDirectory`).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        SecureStoreLocation.defaultDirectory(environment: environment)
    }
}
