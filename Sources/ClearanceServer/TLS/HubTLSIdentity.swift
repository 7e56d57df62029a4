import Clearance
import NIOSSL

/// The certificate chain and key the hub presents, replaceable while it runs: every TLS
/// handshake asks for the current one (swift-nio-ssl's `sslContextCallback`, called once per
/// client hello), so a reload (``HubReloader``) changes the certificate for new connections
/// without a restart, and open connections keep theirs.
final class HubTLSIdentity: Sendable {
    private let current: Locked<NIOSSLContextConfigurationOverride>
    /// The server configuration read at start, asking this identity at every handshake.
    let serverConfiguration: TLSConfiguration

    /// The identity read from `configuration`'s files (once: the server configuration and the
    /// first identity come from the same reading).
    /// - Throws: ``HubTLSError``, naming the file at fault.
    init(_ configuration: HubTLSConfiguration) throws(HubTLSError) {
        var server = try configuration.serverConfiguration()
        let current = Locked(HubTLSConfiguration.identity(of: server))
        server.sslContextCallback = { [current] _, promise in
            promise.succeed(current.withLock { $0 })
        }
        self.current = current
        serverConfiguration = server
    }

    /// Presents `identity` (``HubTLSConfiguration/identity()``) from the next handshake on.
    func present(_ identity: NIOSSLContextConfigurationOverride) {
        current.withLock { $0 = identity }
    }
}
