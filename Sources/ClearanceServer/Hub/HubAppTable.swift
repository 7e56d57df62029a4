/// The apps a hub serves at one moment, by key (for clients) and by id (for the HTTP API). A
/// reload (``HubReloader``) swaps the whole table at once: a request or connection reads one
/// table, never half of two.
struct HubAppTable: Sendable {
    let byKey: [String: HubApp]
    let byID: [String: HubApp]
    /// How many apps the hub's budgets are shared among (``HubConfiguration/sharingApps``).
    let sharing: Int

    /// The table of `configuration`'s apps, each built (signer, verifier, origins, limits) once.
    /// - Throws: the first app's ``HubConfigurationError`` that cannot be built.
    init(configuration: HubConfiguration) throws(HubConfigurationError) {
        var byKey: [String: HubApp] = [:]
        var byID: [String: HubApp] = [:]
        for appConfiguration in configuration.apps {
            let app = try HubApp(configuration: appConfiguration, limits: configuration.limits)
            byKey[app.key] = app
            byID[app.id] = app
        }
        self.byKey = byKey
        self.byID = byID
        sharing = configuration.sharingApps
    }

    /// Most connections `app` may hold: its own `maxConnections`, or else its part
    /// (``HubConnectionLimits/appShare``) of the hub's when the table holds more than one app.
    func connectionLimit(of app: HubApp, limits: HubLimits) -> Int? {
        app.limits.maxConnections ?? (sharing > 1 ? limits.appPart(of: limits.connections.maxConnections, apps: sharing) : nil)
    }

    /// The close code for a connection admitted as `app` that this table no longer serves
    /// (removed, re-keyed: 4001; disabled: 4003), or nil when it still serves it.
    func closeCode(forAdmitted app: HubApp) -> HubCloseCode? {
        guard let current = byID[app.id], current.key == app.key else { return .appDoesNotExist }
        return current.configuration.enabled ? nil : .appDisabled
    }
}
