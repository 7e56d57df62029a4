import ClearanceOAuth2
import Foundation

/// A store that records what was saved and can fail on demand.
final class RecordingStore: SessionStore, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: StoredSession?
    private var _saves: [StoredSession] = []
    private var _clears = 0
    var failWrites = false
    var onSave: (@Sendable (StoredSession) -> Void)?

    init(_ initial: StoredSession? = nil) { stored = initial }

    var current: StoredSession? { lock.withLock { stored } }
    var saves: [StoredSession] { lock.withLock { _saves } }
    var clears: Int { lock.withLock { _clears } }

    func load() async throws(SessionStoreError) -> StoredSession? { lock.withLock { stored } }

    func save(_ session: StoredSession) async throws(SessionStoreError) {
        onSave?(session)
        let fail = lock.withLock { () -> Bool in
            if failWrites { return true }
            stored = session
            _saves.append(session)
            return false
        }
        if fail { throw .writeFailed(path: "memory", reason: "disk full (simulated)") }
    }

    func clear() async throws(SessionStoreError) {
        lock.withLock {
            stored = nil
            _clears += 1
        }
    }
}
