import ClearanceWire

/// The WebSocket request path `/app/{key}?protocol=7&client=…&version=…`, checked.
///
/// Only the shape is checked here; whether the key names an app is the hub's business.
struct ConnectionRequest: Sendable, Equatable {
    static let supportedProtocols: ClosedRange<Int> = 5...7

    let appKey: String
    let protocolVersion: Int

    /// Parses `path` (with its query). Throws the close code to refuse the connection with:
    /// 4005 for another path, 4008 without `protocol`, 4006 when it is not a whole number,
    /// 4007 when it is not 5, 6 or 7.
    init(path: String) throws(HubCloseCode) {
        guard let key = Self.appKey(inPath: path) else { throw .pathNotFound }
        let fields = FormFields(parsing: String(Self.split(path).1))
        guard let versionText = fields.first("protocol") else { throw .noProtocolVersion }
        guard !versionText.isEmpty, versionText.utf8.count <= 9, versionText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let version = Int(versionText)
        else { throw .invalidVersionFormat }
        guard Self.supportedProtocols.contains(version) else { throw .unsupportedProtocolVersion }
        appKey = key
        protocolVersion = version
    }

    /// The app key of `/app/{key}` (a trailing slash and any query tolerated), or nil for
    /// another path.
    static func appKey(inPath path: String) -> String? {
        let segments = path[..<(path.firstIndex(of: "?") ?? path.endIndex)].split(separator: "/", omittingEmptySubsequences: false)
        // "/app/KEY" splits into ["", "app", "KEY"]; a trailing slash is tolerated.
        var parts = segments
        if parts.count == 4, parts[3].isEmpty { parts.removeLast() }
        guard parts.count == 3, parts[0].isEmpty, parts[1] == "app", !parts[2].isEmpty else { return nil }
        return PercentEncoding.decode(parts[2])
    }

    private static func split(_ path: String) -> (Substring, Substring) {
        guard let mark = path.firstIndex(of: "?") else { return (path[...], "") }
        var query = path[path.index(after: mark)...]
        if let fragment = query.firstIndex(of: "#") { query = query[..<fragment] }
        return (path[..<mark], query)
    }
}
