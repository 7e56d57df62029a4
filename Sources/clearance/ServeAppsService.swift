import ClearanceServer
import ClearanceServerPostgres
import ServiceLifecycle

/// `clearance serve --apps-database`'s watch of the apps: each change the database's
/// ``PostgresAppsWatcher`` finds is applied to the running hub through the ``ServeAppsFeed``,
/// until the hub shuts down; `clearance_apps_refused` follows the rows it refuses.
struct ServeAppsService: Service {
    let watcher: PostgresAppsWatcher
    let feed: ServeAppsFeed
    let metrics: HubMetrics

    func run() async throws {
        let (feed, watcher, metrics) = (feed, watcher, metrics)
        await cancelWhenGracefulShutdown {
            await watcher.watch { apps in
                await feed.apply(apps: apps)
                metrics.appsRefused(await watcher.refusedApps.count)
            }
        }
    }
}
