import Clearance
import ClearanceChannels
import ClearanceServer
import ClearanceTestSupport
import Foundation

/// The channel client's side of the shared ``TestHub``.
extension TestHub {
    /// Options for a client of `hub`: fast reconnects, short timeouts, quiet.
    static func options(_ port: Int, authorizer: (any ChannelAuthorizer)? = nil, userAuthenticator: (any UserAuthenticator)? = nil) -> ChannelClientOptions {
        ChannelClientOptions(
            endpoint: .host("127.0.0.1", port: port),
            connectTimeout: .seconds(5),
            authorizer: authorizer,
            userAuthenticator: userAuthenticator,
            authorizationTimeout: .seconds(15),
            authorizationRetry: AuthorizationRetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(50)),
            reconnectPolicy: ReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), jitter: 0.1, restartRetryInterval: .milliseconds(100)),
            logger: quietLogger
        )
    }

    /// The hub's own auth endpoint, calling as `user`.
    static func serverAuthorizer(_ hub: HubServer, token: String) throws -> ServerChannelAuthorizer {
        try ServerChannelAuthorizer(
            endpoint: hub.httpURL.appendingPathComponent("pusher/auth"),
            headers: [.authorization: "Bearer \(token)"],
            transport: http
        )
    }
}

/// Records every authorization the client asks for, and forwards it.
final class RecordingAuthorizer: ChannelAuthorizer {
    private let calls = Locked<[(socketID: String, channel: String)]>([])
    let base: any ChannelAuthorizer

    init(_ base: any ChannelAuthorizer) { self.base = base }

    var recorded: [(socketID: String, channel: String)] { calls.withLock { $0 } }

    func authorize(socketID: String, channelName: String) async throws(ChannelAuthorizationError) -> ChannelAuthorization {
        calls.withLock { $0.append((socketID, channelName)) }
        return try await base.authorize(socketID: socketID, channelName: channelName)
    }
}
