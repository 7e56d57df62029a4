/// What a reload (``HubReloader/reload(_:)``) changed, by app id.
///
/// `description` is one line for logs: `added=2 removed=1 … needs-restart=limits`.
public struct HubReloadReport: Sendable, Hashable, CustomStringConvertible {
    /// Apps served from now on.
    public var added: [String] = []
    /// Apps no longer served: their connections were closed with 4001.
    public var removed: [String] = []
    /// Apps whose key changed: their connections (made with the old key) were closed with 4001.
    public var rekeyed: [String] = []
    /// Apps that were disabled: their connections were closed with 4003.
    public var disabled: [String] = []
    /// Apps with another secret, master key, limit, origin list, webhook or switch: their open
    /// connections stay, and from now on everything is checked and signed the new way.
    public var updated: [String] = []
    /// Connections closed because their app was removed, re-keyed or disabled.
    public var closedConnections = 0
    /// Whether the TLS certificate and key were read again (and are presented to new connections).
    public var certificateReloaded = false
    /// Members that changed but only apply after a restart (`host`, `port`, `limits`,
    /// `metrics`, `tls` turned on or off): the hub keeps running with the values it started with.
    public var needsRestart: [String] = []

    /// An empty report.
    public init() {}

    public var description: String {
        func list(_ name: String, _ ids: [String]) -> String { "\(name)=\(ids.isEmpty ? "none" : ids.joined(separator: ","))" }
        return [
            list("added", added), list("removed", removed), list("rekeyed", rekeyed), list("disabled", disabled), list("updated", updated),
            "closed=\(closedConnections)", "certificate=\(certificateReloaded ? "reloaded" : "unchanged")",
            list("needs-restart", needsRestart),
        ].joined(separator: " ")
    }
}
