/// The apps a hub serves at one moment, by key (for clients) and by id (for the HTTP API). A
/// reload (``HubReloader``) swaps the whole table at once: a request or connection reads one
/// table, never half of two.
struct HubAppTable: Sendable {
    let byKey: [String: HubApp]
    let byID: [String: HubApp]

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
    }
}
