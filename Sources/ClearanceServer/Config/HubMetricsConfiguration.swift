/// Where a hub serves its operational endpoints: `/metrics` (Prometheus text format),
/// `/health` and `/ready`, on a port of their own, apart from the clients' port.
///
/// In a configuration file: `"metrics": {"host": "127.0.0.1", "port": 9090}` (`host` is optional);
/// `clearance serve` also takes `--metrics-port` and `--metrics-host` (`CLEARANCE_METRICS_PORT`,
/// `CLEARANCE_METRICS_HOST`). Without it, no metrics port is opened.
public struct HubMetricsConfiguration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The address to bind. Default `127.0.0.1` (loopback: a scraper on the same machine or
    /// network namespace); `0.0.0.0` for a scraper elsewhere.
    public var host: String
    /// The port to bind; 0 picks a free one.
    public var port: Int

    /// Creates a configuration.
    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// Decodes `{"host": …, "port": …}`; `host` defaults to `127.0.0.1`.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for another
    ///   member, or a decoding error.
    public init(from decoder: any Decoder) throws {
        let members: [ConfigurationMember<Self>] = [.optional("host", \.host), .required("port", \.port)]
        self = try ConfigurationMember.decode(members, from: decoder, startingFrom: Self(port: 0))
    }

    /// `host:port`.
    public var description: String { "\(host):\(port)" }

    /// Checks the port (0…65535), the host (not empty), and that it differs from the hub's own
    /// `port` on the same host (both fixed).
    /// - Throws: ``HubConfigurationError/invalidMetricsEndpoint(_:)``.
    func validate(hubHost: String, hubPort: Int) throws(HubConfigurationError) {
        guard (0...65_535).contains(port) else { throw .invalidMetricsEndpoint("the port \(port) is outside 0…65535") }
        guard !host.isEmpty else { throw .invalidMetricsEndpoint("the host is empty") }
        if port != 0, port == hubPort, host == hubHost {
            throw .invalidMetricsEndpoint("the port \(port) is the hub's own: give the metrics a port of their own")
        }
    }
}
