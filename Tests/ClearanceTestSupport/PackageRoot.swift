import Foundation

/// Where the package is, for tests that run its scripts and executables.
package enum PackageRoot {
    /// `$CLEARANCE_ROOT`, else the directory above this file that holds `Package.swift` and
    /// `Tests/Interop` (symlinks resolved, so a scratch package that links the tests finds it).
    package static func url(filePath: String = #filePath) throws -> URL {
        if let root = ProcessInfo.processInfo.environment["CLEARANCE_ROOT"], !root.isEmpty {
            return URL(fileURLWithPath: root)
        }
        var directory = URL(fileURLWithPath: filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        while directory.path != "/" {
            let manager = FileManager.default
            if manager.fileExists(atPath: directory.appendingPathComponent("Package.swift").path),
               manager.fileExists(atPath: directory.appendingPathComponent("Tests/Interop").path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        throw ChildProcess.Failure("Cannot find the package root above \(filePath); set CLEARANCE_ROOT.")
    }
}
