import ClearanceServer
import Foundation
import Hummingbird
import Logging

/// A hub for development: the production `HubServer` with ``DevelopmentUserDirectory`` auth
/// endpoints at `/pusher/auth` and `/pusher/user-auth`, signing with the first app, and the
/// development Pugpig endpoints (``DevelopmentPugpigServer``: `/pugpig/…`, `/content/…`) for
/// the same users. What `clearance serve`, the demo and the tests run.
///
/// A configuration file for it is a hub configuration with a `users` member (each user's
/// `entitlements`: `"all"`, an array of product ids, `"lapsed"` or `"suspended"`) and an
/// optional `pugpig` member (``DevelopmentPugpigSettings``; a relative `contentDirectory` is
/// relative to the file):
/// ```json
/// {"apps": [{"id": "app-1", "key": "key-1", "secret": "…"}],
///  "users": [{"token": "alice-token", "id": "alice", "info": {"name": "Alice"}, "entitlements": "all"},
///            {"token": "bob-token", "id": "bob", "entitlements": ["issue-1", "issue-2"]}],
///  "pugpig": {"contentDirectory": "content", "tokenLifetime": 3600}}
/// ```
///
/// Its members are `HubConfiguration.developmentMembers`, which the hub configuration lets
/// through at its top level; a member that no object of the file knows, here or in the users or
/// `pugpig`, is refused (`HubConfigurationError.unknownMember`).
///
/// The auth endpoints answer pages of other origins (CORS) when the first app allows their
/// origin (`allowedOrigins`; every origin when it has none). With `"corsCredentials": true` (and
/// an `allowedOrigins` list), pages of those origins may also send the `clearance_token` cookie
/// cross origin: any page there can then get channels signed as the user whose cookie the
/// browser holds.
public struct DevelopmentHub: Sendable, Decodable, CustomStringConvertible {
    /// The hub's configuration.
    public var configuration: HubConfiguration
    /// The users the auth endpoints (and the Pugpig endpoints) know.
    public var users: [DevelopmentUser]
    /// The development Pugpig endpoints' settings.
    public var pugpig: DevelopmentPugpigSettings
    /// Whether the auth endpoints let pages of the first app's `allowedOrigins` send cookies
    /// cross origin (`Access-Control-Allow-Credentials`). Default false; never with every origin.
    public var corsCredentials: Bool
    /// The development Pugpig endpoints' clock (tokens' and edition passwords' ages): the
    /// machine's date, unless a test moves it (``DevelopmentClockFile``).
    public var pugpigClock: @Sendable () -> Date = { Date() }

    /// A hub serving `configuration` with `users` behind its auth endpoints.
    public init(
        configuration: HubConfiguration, users: [DevelopmentUser] = [], pugpig: DevelopmentPugpigSettings = DevelopmentPugpigSettings(),
        corsCredentials: Bool = false
    ) {
        self.configuration = configuration
        self.users = users
        self.pugpig = pugpig
        self.corsCredentials = corsCredentials
    }

    private enum CodingKeys: String, CodingKey { case users, pugpig, corsCredentials }

    /// Decodes the hub configuration, its `users` member (default none), its `pugpig` member
    /// (default settings) and `corsCredentials` (default false) from one object.
    public init(from decoder: any Decoder) throws {
        configuration = try HubConfiguration(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        users = try container.decodeIfPresent([DevelopmentUser].self, forKey: .users) ?? []
        pugpig = try container.decodeIfPresent(DevelopmentPugpigSettings.self, forKey: .pugpig) ?? DevelopmentPugpigSettings()
        corsCredentials = try container.decodeIfPresent(Bool.self, forKey: .corsCredentials) ?? false
    }

    /// Reads a JSON file; validates it unless `validating` is false (for callers that complete it first).
    /// - Throws: `HubConfigurationError` or ``DevelopmentUserError``.
    public static func load(contentsOf url: URL, validating: Bool = true) throws -> DevelopmentHub {
        var hub = try HubConfiguration.decodeFile(url, as: DevelopmentHub.self)
        if let directory = hub.pugpig.contentDirectory, !directory.hasPrefix("/") {
            hub.pugpig.contentDirectory = url.deletingLastPathComponent().appendingPathComponent(directory).path
        }
        if validating { try hub.validate() }
        return hub
    }

    /// Checks the hub configuration and the users.
    /// - Throws: `HubConfigurationError` or ``DevelopmentUserError``.
    public func validate() throws {
        try configuration.validate()
        try DevelopmentUserDirectory(users: users).validate()
        try pugpig.validate()
    }

    /// Starts the hub and returns once it accepts connections.
    public func start(
        cluster: ClusterDrivers? = nil,
        logger: Logger = Logger(label: "clearance.hub"),
        additionalRoutes: @escaping @Sendable (Router<BasicRequestContext>) -> Void = { _ in },
        clock: any HubClock = SystemHubClock()
    ) async throws -> HubServer {
        try await HubServer.start(configuration, cluster: cluster, logger: logger, additionalRoutes: try routes(additionalRoutes), clock: clock)
    }

    /// The service to run in the app's `ServiceGroup` (as `clearance serve` does).
    public func service(
        cluster: ClusterDrivers? = nil,
        logger: Logger = Logger(label: "clearance.hub"),
        onReady: @escaping @Sendable (HubEndpoint) async -> Void = { _ in },
        additionalRoutes: @escaping @Sendable (Router<BasicRequestContext>) -> Void = { _ in },
        metrics: HubMetrics = HubMetrics(),
        reloader: HubReloader? = nil
    ) throws -> HubService {
        HubService(
            configuration: configuration, cluster: cluster, logger: logger, onReady: onReady, additionalRoutes: try routes(additionalRoutes),
            metrics: metrics, reloader: reloader)
    }

    /// `DevelopmentHub(configuration: …, users: [ids])`: no secret, no token.
    public var description: String { "DevelopmentHub(configuration: \(configuration), users: \(users.map(\.id)))" }

    private func routes(_ more: @escaping @Sendable (Router<BasicRequestContext>) -> Void) throws -> @Sendable (Router<BasicRequestContext>) -> Void {
        let users = try DevelopmentUserDirectory(users: users).routes(signingFor: configuration, allowsCredentials: corsCredentials)
        let pugpig = DevelopmentPugpigServer(users: self.users, settings: pugpig, now: pugpigClock)
        return { router in
            users(router)
            pugpig.addRoutes(to: router)
            more(router)
        }
    }
}
