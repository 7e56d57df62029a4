import ClearanceServerPostgres
import ServiceLifecycle

/// `clearance serve --apps-database`'s watch of the apps: each change the database's
/// ``PostgresAppsWatcher`` finds is applied to the running hub through the ``ServeAppsFeed``,
/// until the hub shuts down.
struct ServeAppsService: Service {
    let watcher: PostgresAppsWatcher
    let feed: ServeAppsFeed

    func run() async throws {
        let feed = feed
        await cancelWhenGracefulShutdown {
            await watcher.watch { apps in await feed.apply(apps: apps) }
        }
    }
}
