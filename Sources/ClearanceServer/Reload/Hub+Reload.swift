extension Hub {
    /// Serves `configuration`'s apps from now on (see ``HubReloader``): swaps the app table and
    /// the webhook targets at once, then closes the connections of removed apps and those made
    /// with a re-keyed app's old key (4001), and of disabled ones (4003). The apps are built under the running limits (hub-wide
    /// limits need a restart). Nothing changes when it throws.
    /// - Throws: ``HubConfigurationError`` for an app that cannot be built.
    func reload(_ configuration: HubConfiguration) async throws(HubConfigurationError) -> HubReloadReport {
        var running = configuration
        running.limits = limits
        try Self.refuseHistory(of: configuration.apps, cluster: channels.cluster)
        let table = try HubAppTable(configuration: running)
        let targets = try webhooks.targets(for: running)
        let old = swapApps(table)
        webhooks.serve(targets)
        rates.keep(only: Set(table.byID.keys))
        await channels.countSubscriptions(ofApps: countedApps)
        await channels.updateHistory(Self.historySettings(running))
        var report = HubReloadReport()
        for app in configuration.apps {
            guard let before = old.byID[app.id] else {
                report.added.append(app.id)
                _ = metrics.app(app.id)
                continue
            }
            if before.key != app.key {
                report.rekeyed.append(app.id)
            } else if before.configuration.enabled, !app.enabled {
                report.disabled.append(app.id)
            } else if before.configuration != app {
                report.updated.append(app.id)
            }
        }
        report.removed = old.byID.keys.filter { table.byID[$0] == nil }.sorted()
        for id in report.removed {
            report.closedConnections += await closeConnections(appID: id, .appDoesNotExist, reason: "The app is no longer served by this hub", event: "hub.app.removed")
        }
        for id in report.rekeyed {
            // Only the old key's: clients that already connected with the new one stay.
            guard let oldKey = old.byID[id]?.key else { continue }
            report.closedConnections += await closeConnections(
                appID: id, key: oldKey, .appDoesNotExist, reason: "The app's key changed: connect with the new key", event: "hub.app.rekeyed")
        }
        for id in report.disabled {
            report.closedConnections += await closeConnections(appID: id, .appDisabled, reason: "The app was disabled", event: "hub.app.disabled")
        }
        return report
    }
}
