import Clearance
import NIOSSL

/// The certificate chain and key the hub presents, replaceable while it runs: every TLS
/// handshake asks for the current one (swift-nio-ssl's `sslContextCallback`, called once per
/// client hello), so a reload (``HubReloader``) changes the certificate for new connections
/// without a restart, and open connections keep theirs.
final class HubTLSIdentity: Sendable {
    private let current: Locked<NIOSSLContextConfigurationOverride>

    /// The identity read from `configuration`'s files.
    /// - Throws: ``HubTLSError``, naming the file at fault.
    init(_ configuration: HubTLSConfiguration) throws(HubTLSError) {
        current = Locked(try configuration.identity())
    }

    /// Presents `identity` (``HubTLSConfiguration/identity()``) from the next handshake on.
    func present(_ identity: NIOSSLContextConfigurationOverride) {
        current.withLock { $0 = identity }
    }

    /// The server configuration: `configuration`'s, asking this identity at every handshake.
    /// - Throws: ``HubTLSError``, naming the file at fault.
    func serverConfiguration(_ configuration: HubTLSConfiguration) throws(HubTLSError) -> TLSConfiguration {
        var server = try configuration.serverConfiguration()
        server.sslContextCallback = { [current] _, promise in
            promise.succeed(current.withLock { $0 })
        }
        return server
    }
}
