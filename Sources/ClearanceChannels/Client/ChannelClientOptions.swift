import Clearance
import ClearanceWire
import Logging
import NIOSSL

/// How a ``ChannelClient`` connects, authorizes and recovers.
public struct ChannelClientOptions: Sendable {
    /// Where the server is.
    public enum Endpoint: Sendable, Hashable {
        /// Hosted Pusher: `ws-CLUSTER.pusher.com`.
        case cluster(String)
        /// Any Pusher-compatible server; `port` nil means 443 with TLS, 80 without.
        case host(String, port: Int? = nil)
    }

    /// The server. Default: hosted Pusher's `mt1` cluster.
    public var endpoint: Endpoint
    /// `wss` or `ws`; nil (the default) means TLS, except plain `ws` for a loopback host.
    public var useTLS: Bool?
    /// Silence after which the client sends `pusher:ping`; the server's `activity_timeout` is
    /// used when it is shorter. Default 120 s.
    public var activityTimeout: Duration
    /// How long to wait for `pusher:pong` (or any frame) after a ping. Default 30 s.
    public var pongTimeout: Duration
    /// How long to wait for `pusher:connection_established` after opening the socket. Default 10 s.
    public var connectTimeout: Duration
    /// Authorizes private, presence and encrypted channels. Without one, such channels fail with
    /// ``ChannelAuthorizationError/misconfigured(reason:)``.
    public var authorizer: (any ChannelAuthorizer)?
    /// Authenticates the user for ``ChannelClient/signIn()``.
    public var userAuthenticator: (any UserAuthenticator)?
    /// The deadline for one authorization or sign-in attempt, whatever the authorizer. Default 15 s.
    public var authorizationTimeout: Duration
    /// How transient authorization failures are retried.
    public var authorizationRetry: AuthorizationRetryPolicy
    /// When to reconnect after the connection ended.
    public var reconnectPolicy: ReconnectPolicy
    /// The largest message accepted from the server. Default 1 MiB.
    public var maximumMessageSize: Int
    /// How long the closing handshake may take on disconnect. Default 1 s.
    public var closeTimeout: Duration
    /// The `client` and `version` sent in the connection URL.
    public var clientName: String
    /// The version sent in the connection URL.
    public var clientVersion: String
    /// PEM certificates trusted for `wss://` besides the system's roots: the root of a private
    /// certificate authority that signed your own hub's certificate (a staging cluster's, a
    /// test's). Nil (the default): the system's roots only. Unused without TLS; the host name is
    /// checked against the certificate either way.
    public var additionalTrustRootsPEM: String?
    /// Where the client logs. Signatures, tokens and shared secrets are never logged.
    public var logger: Logger

    /// Creates options.
    public init(
        endpoint: Endpoint = .cluster("mt1"),
        useTLS: Bool? = nil,
        activityTimeout: Duration = .seconds(120),
        pongTimeout: Duration = .seconds(30),
        connectTimeout: Duration = .seconds(10),
        authorizer: (any ChannelAuthorizer)? = nil,
        userAuthenticator: (any UserAuthenticator)? = nil,
        authorizationTimeout: Duration = .seconds(15),
        authorizationRetry: AuthorizationRetryPolicy = AuthorizationRetryPolicy(),
        reconnectPolicy: ReconnectPolicy = .standard,
        maximumMessageSize: Int = 1 << 20,
        closeTimeout: Duration = .seconds(1),
        clientName: String = "clearance-swift",
        clientVersion: String = "1.0.0",
        additionalTrustRootsPEM: String? = nil,
        logger: Logger = Logger(label: "clearance.channels")
    ) {
        self.endpoint = endpoint
        self.useTLS = useTLS
        self.activityTimeout = activityTimeout
        self.pongTimeout = pongTimeout
        self.connectTimeout = connectTimeout
        self.authorizer = authorizer
        self.userAuthenticator = userAuthenticator
        self.authorizationTimeout = authorizationTimeout
        self.authorizationRetry = authorizationRetry
        self.reconnectPolicy = reconnectPolicy
        self.maximumMessageSize = maximumMessageSize
        self.closeTimeout = closeTimeout
        self.clientName = clientName
        self.clientVersion = clientVersion
        self.additionalTrustRootsPEM = additionalTrustRootsPEM
        self.logger = logger
    }

    /// The largest ``maximumMessageSize`` accepted (64 MiB).
    public static let largestMessageSize = 64 << 20

    /// Checks every duration and size against its bounds (each timeout more than zero and at
    /// most ``ReconnectPolicy/longestDuration``), and the two policies.
    /// ``ChannelClient/connect()`` runs it: options that cannot work fail the connection with a
    /// clear reason, never a trap (a timeout of 1e300 seconds).
    /// - Throws: ``ChannelClientError/invalidOptions(reason:)`` naming the first bad member.
    public func validate() throws(ChannelClientError) {
        let timeouts: KeyValuePairs<String, Duration> = [
            "activityTimeout": activityTimeout, "pongTimeout": pongTimeout, "connectTimeout": connectTimeout,
            "authorizationTimeout": authorizationTimeout, "closeTimeout": closeTimeout,
        ]
        for (name, value) in timeouts where value <= .zero || value > ReconnectPolicy.longestDuration {
            throw .invalidOptions(reason: "\(name) must be more than 0 and at most \(ReconnectPolicy.longestDuration), not \(value)")
        }
        guard (1...Self.largestMessageSize).contains(maximumMessageSize) else {
            throw .invalidOptions(reason: "maximumMessageSize must be between 1 and \(Self.largestMessageSize) bytes, not \(maximumMessageSize)")
        }
        if let problem = reconnectPolicy.firstInvalidMember() ?? authorizationRetry.firstInvalidMember() {
            throw .invalidOptions(reason: problem)
        }
        _ = try tlsConfiguration()
        if usesTLS, Self.isIPAddress(host) {
            throw .invalidOptions(reason: "TLS to the IP address \(host) cannot work (swift-nio-ssl sends no SNI to, and checks no certificate for, an IP address): give the host's name")
        }
    }

    /// Whether `host` is an IPv4 or IPv6 address literal rather than a name.
    private static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// swift-nio-ssl's client configuration with ``additionalTrustRootsPEM``; nil without them
    /// (WSClient's default: the system's roots).
    /// - Throws: ``ChannelClientError/invalidOptions(reason:)`` when they hold no PEM certificate.
    func tlsConfiguration() throws(ChannelClientError) -> TLSConfiguration? {
        guard let pem = additionalTrustRootsPEM else { return nil }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
            throw .invalidOptions(reason: "additionalTrustRootsPEM holds no usable PEM certificate")
        }
        guard !certificates.isEmpty else { throw .invalidOptions(reason: "additionalTrustRootsPEM holds no PEM certificate") }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.additionalTrustRoots = [.certificates(certificates)]
        return configuration
    }

    /// The host name the client connects to.
    public var host: String {
        switch endpoint {
        case .cluster(let cluster): "ws-\(cluster).pusher.com"
        case .host(let host, _): host
        }
    }

    /// Whether the connection uses TLS.
    public var usesTLS: Bool { useTLS ?? !Origin.isLoopback(host: host) }

    /// The port the client connects to.
    public var port: Int {
        if case .host(_, let port?) = endpoint { return port }
        return usesTLS ? 443 : 80
    }

    /// `ws[s]://HOST:PORT/app/KEY?protocol=7&client=…&version=…`.
    /// - Throws: ``ChannelClientError/invalidOptions(reason:)`` for an empty key or host.
    public func webSocketURL(key: String) throws(ChannelClientError) -> String {
        guard !key.isEmpty else { throw .invalidOptions(reason: "the app key is empty") }
        let host = self.host
        guard !host.isEmpty, !host.contains("/"), !host.contains(" ") else {
            throw .invalidOptions(reason: "'\(host)' is not a host name")
        }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(usesTLS ? "wss" : "ws")://\(bracketed):\(port)/app/\(PercentEncoding.encode(key))"
            + "?protocol=7&client=\(PercentEncoding.encode(clientName))&version=\(PercentEncoding.encode(clientVersion))"
    }
}
