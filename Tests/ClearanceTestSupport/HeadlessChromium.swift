import Foundation

/// A real browser for tests: Debian's headless Chromium (`chromium-headless-shell`, installed
/// by `scripts/test`; `CLEARANCE_CHROMIUM` names another binary), opening one page in a
/// profile of its own, as its own process, always with `--headless` (Debian's desktop `chromium`
/// would otherwise wait for a display; `chromium-headless-shell` ignores the flag). What a page does is reported by the page itself (to
/// a server of the test); a missing browser is a failure, never a skip.
package struct HeadlessChromium: Sendable {
    /// The running browser.
    package let process: ChildProcess
    private let profile: URL

    /// The browser binary: `$CLEARANCE_CHROMIUM`, else Debian's (the binary itself, not the
    /// `/usr/bin` script that would outlive a signal as a parent), else `chromium-headless-shell`
    /// or `chromium` on `PATH`.
    package static func executable() throws -> URL {
        guard let first = try executables().first else { throw missing }
        return first
    }

    /// Every browser a test should run in: `$CLEARANCE_CHROMIUM` alone when it is set, else each
    /// of Debian's `chromium-headless-shell` and desktop `chromium` that is installed (both, when
    /// both are), else the first of them on `PATH`. Throws when there is none.
    package static func executables() throws -> [URL] {
        if let explicit = ProcessInfo.processInfo.environment["CLEARANCE_CHROMIUM"], !explicit.isEmpty {
            return [URL(fileURLWithPath: explicit)]
        }
        let debian = ["/usr/lib/chromium/chromium-headless-shell", "/usr/lib/chromium/chromium"]
            .filter { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
        if !debian.isEmpty { return debian }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium-headless-shell", "chromium"] {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return [candidate] }
            }
        }
        throw missing
    }

    private static var missing: ChildProcess.Failure {
        ChildProcess.Failure("No Chromium found: install Debian's chromium-headless-shell (scripts/test does) or set CLEARANCE_CHROMIUM.")
    }

    /// Opens `url` in a new headless browser (`executable`, by default the first of
    /// ``executables()``) and returns at once.
    package static func open(_ url: URL, in executable: URL? = nil) throws -> HeadlessChromium {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        // --headless: Debian's desktop `chromium` otherwise looks for a display and never loads the
        // page (chromium-headless-shell ignores it). --no-sandbox: tests run as root in CI, where
        // Chromium's sandbox refuses to start.
        let process = try ChildProcess.start(try executable ?? Self.executable(), [
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile.path)", url.absoluteString,
        ])
        return HeadlessChromium(process: process, profile: profile)
    }

    /// Closes the browser and removes its profile.
    package func close() async {
        await process.stop(.terminate(grace: .seconds(5)))
        try? FileManager.default.removeItem(at: profile)
    }
}
