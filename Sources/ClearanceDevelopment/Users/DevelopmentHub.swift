import ClearanceServer
import Foundation
import Hummingbird
import Logging

/// A hub for development: the production ``HubServer`` with ``DevelopmentUserDirectory`` auth
/// endpoints at `/pusher/auth` and `/pusher/user-auth`, signing with the first app. What
/// `clearance serve`, the demo and the tests run.
///
/// A configuration file for it is a hub configuration with a `users` member:
/// ```json
/// {"apps": [{"id": "app-1", "key": "key-1", "secret": "…"}],
///  "users": [{"token": "alice-token", "id": "alice", "info": {"name": "Alice"}}]}
/// ```
public struct DevelopmentHub: Sendable, Decodable, CustomStringConvertible {
    /// The hub's configuration.
    public var configuration: HubConfiguration
    /// The users the auth endpoints know.
    public var users: [DevelopmentUser]

    /// A hub serving `configuration` with `users` behind its auth endpoints.
    public init(configuration: HubConfiguration, users: [DevelopmentUser] = []) {
        self.configuration = configuration
        self.users = users
    }

    private enum CodingKeys: String, CodingKey { case users }

    /// Decodes the hub configuration and its `users` member (default none) from one object.
    public init(from decoder: any Decoder) throws {
        configuration = try HubConfiguration(from: decoder)
        users = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent([DevelopmentUser].self, forKey: .users) ?? []
    }

    /// Reads a JSON file; validates it unless `validating` is false (for callers that complete it first).
    /// - Throws: ``HubConfigurationError`` or ``DevelopmentUserError``.
    public static func load(contentsOf url: URL, validating: Bool = true) throws -> DevelopmentHub {
        let hub = try HubConfiguration.decodeFile(url, as: DevelopmentHub.self)
        if validating { try hub.validate() }
        return hub
    }

    /// Checks the hub configuration and the users.
    /// - Throws: ``HubConfigurationError`` or ``DevelopmentUserError``.
    public func validate() throws {
        try configuration.validate()
        try DevelopmentUserDirectory(users: users).validate()
    }

    /// Starts the hub and returns once it accepts connections.
    public func start(
        adapter: (any ChannelStateAdapter)? = nil,
        logger: Logger = Logger(label: "clearance.hub"),
        additionalRoutes: @escaping @Sendable (Router<BasicRequestContext>) -> Void = { _ in }
    ) async throws -> HubServer {
        try await HubServer.start(configuration, adapter: adapter, logger: logger, additionalRoutes: try routes(additionalRoutes))
    }

    /// The service to run in the app's `ServiceGroup` (as `clearance serve` does).
    public func service(
        adapter: (any ChannelStateAdapter)? = nil,
        logger: Logger = Logger(label: "clearance.hub"),
        onReady: @escaping @Sendable (HubEndpoint) async -> Void = { _ in },
        additionalRoutes: @escaping @Sendable (Router<BasicRequestContext>) -> Void = { _ in }
    ) throws -> HubService {
        HubService(configuration: configuration, adapter: adapter, logger: logger, onReady: onReady, additionalRoutes: try routes(additionalRoutes))
    }

    /// `DevelopmentHub(configuration: …, users: [ids])`: no secret, no token.
    public var description: String { "DevelopmentHub(configuration: \(configuration), users: \(users.map(\.id)))" }

    private func routes(_ more: @escaping @Sendable (Router<BasicRequestContext>) -> Void) throws -> @Sendable (Router<BasicRequestContext>) -> Void {
        let users = try DevelopmentUserDirectory(users: users).routes(signingFor: configuration)
        return { router in
            users(router)
            more(router)
        }
    }
}
