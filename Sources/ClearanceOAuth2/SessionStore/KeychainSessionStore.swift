#if canImport(Security)
import ClearanceStore
import Foundation

/// A session store in the Apple Keychain: a ``KeychainStore`` of ``StoredSession``s (a generic
/// password item holding the session as JSON).
///
/// - Accessibility defaults to ``KeychainAccessibility/afterFirstUnlock``, so background refresh
///   works while the device is locked (after the first unlock since boot).
/// - ``accessGroup`` shares the session between an app and its extensions.
/// - An item that cannot be decoded is kept under the account `<account>.corrupt-<timestamp>`,
///   never deleted, and ``load()`` reports ``SessionStoreError/corrupt(reason:movedAside:)``.
///
/// - Note: Written for Apple platforms and not compiled on Linux.
public final class KeychainSessionStore: SessionStore {
    /// When the item can be read (`kSecAttrAccessible…`).
    public typealias Accessibility = KeychainAccessibility

    private let item: KeychainStore<StoredSession>

    /// The item's service (`kSecAttrService`).
    public var service: String { item.service }
    /// The item's account (`kSecAttrAccount`).
    public var account: String { item.account }
    /// The keychain access group, if shared.
    public var accessGroup: String? { item.accessGroup }
    /// When the item can be read.
    public var accessibility: Accessibility { item.accessibility }

    public init(service: String = "clearance.oauth2", account: String = "session", accessGroup: String? = nil, accessibility: Accessibility = .afterFirstUnlock) {
        self.item = KeychainStore(service: service, account: account, accessGroup: accessGroup, accessibility: accessibility)
    }

    public func load() async throws(SessionStoreError) -> StoredSession? {
        try await item.load()
    }

    public func save(_ session: StoredSession) async throws(SessionStoreError) {
        try await item.save(session)
    }

    public func clear() async throws(SessionStoreError) {
        try await item.clear()
    }
}
#endif
