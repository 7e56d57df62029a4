import Clearance
import ClearanceServer

/// What a hub with `--apps-database` runs on: the configuration's other members (the file, the
/// environment, the flags: read again on SIGHUP) and the apps (the database: read again when they
/// change). Either change is applied through the ``HubReloader``, one after the other in the order
/// they came (each applies the latest of both), so a SIGHUP never puts back apps the database
/// changed meanwhile.
final class ServeAppsFeed: Sendable {
    private struct Latest: Sendable {
        var base: HubConfiguration
        var apps: [HubAppConfiguration]
    }

    private let reloader: HubReloader
    private let latest: Locked<Latest>
    private let queue = CommitQueue()
    private let say: @Sendable (String) -> Void

    /// A feed starting from `base` (with its apps: those read at start).
    init(reloader: HubReloader, base: HubConfiguration, say: @escaping @Sendable (String) -> Void) {
        self.reloader = reloader
        latest = Locked(Latest(base: base, apps: base.apps))
        self.say = say
    }

    /// Applies `base` (a configuration reloaded on SIGHUP, without apps) with the latest apps.
    func apply(base: HubConfiguration) async throws(HubReloadError) -> HubReloadReport {
        latest.withLock { $0.base = base }
        return try await queue.run { [self] in await applyLatest() }.get()
    }

    /// Applies the database's `apps` with the latest configuration; prints what changed
    /// (`apps changed added=… removed=…`) or why it was refused.
    func apply(apps: [HubAppConfiguration]) async {
        latest.withLock { $0.apps = apps }
        let outcome = await queue.run { [self] in await applyLatest() }
        switch outcome {
        case let .success(report): say("apps changed \(report)")
        case let .failure(error): say("apps change refused: \(error.message)")
        }
    }

    private func applyLatest() async -> Result<HubReloadReport, HubReloadError> {
        var configuration = latest.withLock { latest in
            var configuration = latest.base
            configuration.apps = latest.apps
            return configuration
        }
        configuration.waitsForApps = true
        do {
            return .success(try await reloader.reload(configuration))
        } catch {
            return .failure(error)
        }
    }
}
