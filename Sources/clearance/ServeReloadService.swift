import ClearanceServer
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// `clearance serve`'s reload: on every SIGHUP, the configuration is resolved again as at start
/// (the file, then the environment, then the flags) and applied to the running hub through its
/// ``HubReloader``; the TLS files are read again. What changed is printed
/// (`reloaded added=… removed=… …`); a configuration that does not parse or validate, or a
/// certificate that cannot be used, is refused with a log line (`hub.reload.refused`) and the
/// hub keeps running on the last good configuration.
struct ServeReloadService: Service {
    /// Applies a configuration: the ``HubReloader``'s, or with `--apps-database` the
    /// ``ServeAppsFeed``'s (which keeps the database's apps).
    let apply: @Sendable (HubConfiguration) async throws(HubReloadError) -> HubReloadReport
    /// The configuration as it would be resolved now.
    let resolve: @Sendable () throws -> HubConfiguration
    let logger: Logger
    let say: @Sendable (String) -> Void

    func run() async throws {
        let hangUps = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangUps.cancelOnGracefulShutdown() {
            await reload()
        }
    }

    private func reload() async {
        logger.info("hub.reload.started")
        let configuration: HubConfiguration
        do {
            configuration = try resolve()
        } catch {
            refused(String(describing: error))
            return
        }
        do {
            let report = try await apply(configuration)
            say("reloaded \(report)")
        } catch {
            refused(error.message)
        }
    }

    private func refused(_ reason: String) {
        logger.error("hub.reload.refused", metadata: ["reason": "\(reason)", "kept": "the last good configuration"])
        say("reload refused: \(reason)")
    }
}
