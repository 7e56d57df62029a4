#if canImport(Security)
import Security

/// When the item can be read (`kSecAttrAccessible…`).
public enum KeychainAccessibility: Sendable, Hashable {
    /// After the first unlock since boot, until reboot. Background refresh works. The default.
    case afterFirstUnlock
    /// As ``afterFirstUnlock``, never migrated to another device.
    case afterFirstUnlockThisDeviceOnly
    /// Only while the device is unlocked.
    case whenUnlocked
    /// As ``whenUnlocked``, never migrated to another device.
    case whenUnlockedThisDeviceOnly

    var attribute: CFString {
        switch self {
        case .afterFirstUnlock: kSecAttrAccessibleAfterFirstUnlock
        case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenUnlocked: kSecAttrAccessibleWhenUnlocked
        case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        }
    }
}
#endif
