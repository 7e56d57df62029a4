import Clearance
import Foundation

/// Why a ``SecureStore`` (an OAuth2 session store, the entitlement store, an app's own) could
/// not load, save or clear what it keeps.
///
/// A store that cannot be read never crashes the app: its owner starts signed out and reports
/// the cause (an OAuth2 session as its `storeUnreadable` event). The file store moves an
/// unreadable file aside (``movedAside``) instead of deleting it.
public enum SessionStoreError: ClearanceError {
    /// The stored data is damaged: not the expected format, or its authentication tag does not verify.
    case corrupt(reason: String, movedAside: URL?)
    /// The stored data was sealed with another key (its key identifier differs from the configured key's).
    case wrongKey(movedAside: URL?)
    /// The stored data has a format version this build does not know.
    case unsupportedFormat(version: Int, movedAside: URL?)
    /// The store could not be read (permissions, I/O error).
    case readFailed(path: String, reason: String)
    /// The store could not be written or cleared.
    case writeFailed(path: String, reason: String)
    /// The encryption key is not available (missing variable or file, not 32 bytes of base64).
    case keyUnavailable(reason: String)
    /// The key file can be read by other users; it must be mode 0600 or stricter.
    case insecureKeyFile(path: String, mode: Int)
    /// The Keychain answered with an `OSStatus` error.
    case keychain(operation: String, status: Int32)

    /// ``qualifiedCode`` is `session_store.<code>`.
    public static let codeDomain = "session_store"

    /// Where the unreadable data was moved, when it was.
    public var movedAside: URL? {
        switch self {
        case .corrupt(_, let url), .wrongKey(let url), .unsupportedFormat(_, let url): url
        default: nil
        }
    }

    /// Each case's code and message (a human sentence that never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .corrupt(let reason, _):
            .init(.corrupt, "The stored session is corrupt (\(Redactor.scrub(reason))).\(aside)")
        case .wrongKey:
            .init(.wrongKey, "The stored session was encrypted with a different key.\(aside)")
        case .unsupportedFormat(let version, _):
            .init(.unsupportedFormat, "The stored session has format version \(version), which this build cannot read.\(aside)")
        case .readFailed(let path, let reason):
            .init(.readFailed, "The session store at \(path) cannot be read: \(Redactor.scrub(reason)).")
        case .writeFailed(let path, let reason):
            .init(.writeFailed, "The session store at \(path) cannot be written: \(Redactor.scrub(reason)).")
        case .keyUnavailable(let reason):
            .init(.keyUnavailable, "The session store key is unavailable: \(Redactor.scrub(reason)).")
        case .insecureKeyFile(let path, let mode):
            .init(.insecureKeyFile, "The session store key file \(path) has mode \(String(mode, radix: 8)); it must not be readable by others (use 0600).")
        case .keychain(let operation, let status):
            .init(.keychain, "The Keychain refused to \(operation) (OSStatus \(status)).")
        }
    }

    /// ` The file was moved aside to …`, or nothing.
    private var aside: String { movedAside.map { " The file was moved aside to \($0.path)." } ?? "" }

    /// Stable machine-readable codes, one per case; ``qualifiedCode`` is `session_store.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case corrupt, wrongKey = "wrong_key", unsupportedFormat = "unsupported_format"
        case readFailed = "read_failed", writeFailed = "write_failed"
        case keyUnavailable = "key_unavailable", insecureKeyFile = "insecure_key_file", keychain
    }
}
