import Clearance
import NIOSSL

/// Applies a new configuration to a running hub, without a restart: give one to
/// ``HubService/init(configuration:cluster:logger:onReady:additionalRoutes:counters:webhookQueue:metrics:reloader:clock:)``
/// and call ``reload(_:)`` (`clearance serve` does on SIGHUP).
///
/// - Apps are added, removed, or get a new key, secret, master key, limits, origins, webhooks.
///   Open connections of an app whose key did not change stay open and are checked with the new
///   secret from then on (a signature made with the old one is refused); connections of a removed
///   or re-keyed app are closed with 4001, of a disabled app with 4003.
/// - With TLS, the certificate and key files are read again: new connections get the new
///   certificate, open ones keep theirs.
/// - A configuration or certificate that is not usable is refused as a whole
///   (``HubReloadError``): the hub keeps running as it was.
/// - `host`, `port`, `limits`, `metrics` and turning TLS on or off only apply after a restart:
///   the report names them (``HubReloadReport/needsRestart``).
public final class HubReloader: Sendable {
    private struct Running: Sendable {
        let hub: Hub
        let tls: HubTLSIdentity?
    }

    private let running = Locked<Running?>(nil)

    /// A reloader for the hub it will be given to.
    public init() {}

    func attach(_ hub: Hub, tls: HubTLSIdentity?) {
        running.withLock { $0 = Running(hub: hub, tls: tls) }
    }

    func detach() {
        running.withLock { $0 = nil }
    }

    /// Applies `configuration` to the running hub (call it once at a time: each call applies its
    /// whole configuration).
    /// - Returns: what changed.
    /// - Throws: ``HubReloadError``; the hub is then unchanged.
    public func reload(_ configuration: HubConfiguration) async throws(HubReloadError) -> HubReloadReport {
        guard let running = running.withLock({ $0 }) else { throw .notRunning }
        do {
            try configuration.validate()
        } catch {
            throw .configuration(error)
        }
        let hub = running.hub
        var needsRestart = hub.configuration.restartMembers(comparedWith: configuration)
        var identity: NIOSSLContextConfigurationOverride?
        if let tls = configuration.tls, running.tls != nil {
            do {
                identity = try tls.identity()
            } catch {
                throw .certificate(error)
            }
        } else if (configuration.tls == nil) != (running.tls == nil), !needsRestart.contains("tls") {
            needsRestart.append("tls")
        }
        var report: HubReloadReport
        do {
            report = try await hub.reload(configuration)
        } catch {
            throw .configuration(error)
        }
        if let identity, let tls = running.tls {
            tls.present(identity)
            report.certificateReloaded = true
        }
        report.needsRestart = needsRestart
        hub.logger.notice("hub.reloaded", metadata: ["report": "\(report)"])
        return report
    }
}
