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
        let (pathPart, query) = Self.split(path)
        let segments = pathPart.split(separator: "/", omittingEmptySubsequences: false)
        // "/app/KEY" splits into ["", "app", "KEY"]; a trailing slash is tolerated.
        var parts = segments
        if parts.count == 4, parts[3].isEmpty { parts.removeLast() }
        guard parts.count == 3, parts[0].isEmpty, parts[1] == "app", !parts[2].isEmpty else { throw .pathNotFound }
        guard let key = PercentEncoding.decode(parts[2]) else { throw .pathNotFound }

        let fields = FormFields(parsing: String(query))
        guard let versionText = fields.first("protocol") else { throw .noProtocolVersion }
        guard !versionText.isEmpty, versionText.utf8.count <= 9, versionText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let version = Int(versionText)
        else { throw .invalidVersionFormat }
        guard Self.supportedProtocols.contains(version) else { throw .unsupportedProtocolVersion }
        appKey = key
        protocolVersion = version
    }

    private static func split(_ path: String) -> (Substring, Substring) {
        guard let mark = path.firstIndex(of: "?") else { return (path[...], "") }
        var query = path[path.index(after: mark)...]
        if let fragment = query.firstIndex(of: "#") { query = query[..<fragment] }
        return (path[..<mark], query)
    }
}
