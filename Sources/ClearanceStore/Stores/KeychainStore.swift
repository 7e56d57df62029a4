#if canImport(Security)
import Foundation
import Security

/// A ``SecureStore`` in the Apple Keychain: one generic password item, named by its service
/// and account, holding the value as JSON.
///
/// - Accessibility defaults to ``Accessibility/afterFirstUnlock``, so background refresh works
///   while the device is locked (after the first unlock since boot).
/// - ``accessGroup`` shares the value between an app and its extensions.
/// - On macOS the data-protection keychain is used, so accessibility and access groups behave
///   as on iOS.
/// - An item that cannot be decoded is kept under the account `<account>.corrupt-<timestamp>`,
///   never deleted, and ``load()`` reports ``SessionStoreError/corrupt(reason:movedAside:)``.
/// - Several values live side by side under one service, each under its own account (name).
///
/// - Note: Written for Apple platforms and not compiled on Linux.
public final class KeychainStore<Value: Codable & Sendable>: SecureStore {
    /// When the item can be read.
    public typealias Accessibility = KeychainAccessibility

    /// The item's service (`kSecAttrService`).
    public let service: String
    /// The item's account (`kSecAttrAccount`).
    public let account: String
    /// The keychain access group, if shared.
    public let accessGroup: String?
    /// When the item can be read.
    public let accessibility: Accessibility

    /// - Parameters:
    ///   - service: The item's service, shared by an app's values (`kSecAttrService`).
    ///   - account: The value's name (`kSecAttrAccount`).
    ///   - accessGroup: The access group, to share the value with the app's extensions.
    ///   - accessibility: When the item can be read.
    public init(service: String, account: String, accessGroup: String? = nil, accessibility: Accessibility = .afterFirstUnlock) {
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.accessibility = accessibility
    }

    public func load() async throws(SessionStoreError) -> Value? {
        var query = baseQuery(account: account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else {
            throw .keychain(operation: "read \(account)", status: status)
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            let kept = keepAside(data)
            throw .corrupt(reason: "the Keychain item cannot be decoded\(kept.map { "; kept under the account \($0)" } ?? "")", movedAside: nil)
        }
    }

    public func save(_ value: Value) async throws(SessionStoreError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(value)
        } catch {
            throw .writeFailed(path: "keychain:\(service)/\(account)", reason: "cannot encode the value")
        }
        let attributes: [String: Any] = [
            kSecValueData as String: data,
            kSecAttrAccessible as String: accessibility.attribute,
        ]
        let status = SecItemUpdate(baseQuery(account: account) as CFDictionary, attributes as CFDictionary)
        if status == errSecSuccess { return }
        guard status == errSecItemNotFound else {
            throw .keychain(operation: "update \(account)", status: status)
        }
        var item = baseQuery(account: account)
        item.merge(attributes) { $1 }
        let added = SecItemAdd(item as CFDictionary, nil)
        guard added == errSecSuccess else {
            throw .keychain(operation: "add \(account)", status: added)
        }
    }

    public func clear() async throws(SessionStoreError) {
        let status = SecItemDelete(baseQuery(account: account) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else {
            throw .keychain(operation: "delete \(account)", status: status)
        }
    }

    private func baseQuery(account: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        #if os(macOS)
        query[kSecUseDataProtectionKeychain as String] = true
        #endif
        return query
    }

    /// Copies undecodable data to `<account>.corrupt-<timestamp>` and deletes the original; the new account, or nil.
    private func keepAside(_ data: Data) -> String? {
        let aside = "\(account).corrupt-\(Int(Date().timeIntervalSince1970))"
        var item = baseQuery(account: aside)
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = accessibility.attribute
        guard SecItemAdd(item as CFDictionary, nil) == errSecSuccess else { return nil }
        SecItemDelete(baseQuery(account: account) as CFDictionary)
        return aside
    }
}
#endif
