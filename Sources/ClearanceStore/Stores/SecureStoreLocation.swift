import Foundation

/// Where Clearance keeps its files by default.
public enum SecureStoreLocation {
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
}
