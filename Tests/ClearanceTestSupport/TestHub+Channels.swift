import Clearance
import ClearanceChannels
import ClearanceServer
import Foundation

/// The channel client's side of the shared ``TestHub``.
extension TestHub {
    /// Options for a client of the hub on `port`: fast reconnects, short timeouts, quiet. The
    /// connect and authorization deadlines run on real time and are not what these tests check
    /// (the tests of the deadlines set their own): they stretch under a sanitizer (TestTiming).
    package static func options(_ port: Int, authorizer: (any ChannelAuthorizer)? = nil, userAuthenticator: (any UserAuthenticator)? = nil) -> ChannelClientOptions {
        ChannelClientOptions(
            endpoint: .host("127.0.0.1", port: port),
            connectTimeout: TestTiming.scaled(.seconds(5)),
            authorizer: authorizer,
            userAuthenticator: userAuthenticator,
            authorizationTimeout: TestTiming.scaled(.seconds(15)),
            authorizationRetry: AuthorizationRetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(50)),
            reconnectPolicy: ReconnectPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(200), jitter: 0.1, restartRetryInterval: .milliseconds(100)),
            logger: quietLogger
        )
    }

    /// Signs a client in as `userID` (watching `watchlist`, when not empty), its user data signed
    /// with the app secret as an app's server would.
    package static func userAuthenticator(_ userID: String, watching watchlist: [String] = []) throws -> InlineSecretUserAuthenticator {
        let list = watchlist.isEmpty ? "" : #","watchlist":["# + watchlist.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        return try InlineSecretUserAuthenticator(signer: signer, userData: #"{"id":"\#(userID)"\#(list)}"#)
    }

    /// Options for a client of the TLS hub on `port` (reached by name: swift-nio-ssl checks no
    /// certificate for an IP address) that trusts `caPEM` beside the system's roots.
    package static func tlsOptions(_ port: Int, trusting caPEM: String?) -> ChannelClientOptions {
        var options = options(port)
        options.endpoint = .host("localhost", port: port)
        options.useTLS = true
        options.additionalTrustRootsPEM = caPEM
        return options
    }

    /// The hub's own auth endpoint, calling as the user with `token`.
    package static func serverAuthorizer(_ hub: HubServer, token: String) throws -> ServerChannelAuthorizer {
        try serverAuthorizer(hub.httpURL, token: token)
    }

    /// The auth endpoint of the hub at `httpURL`, calling as the user with `token`.
    package static func serverAuthorizer(_ httpURL: URL, token: String) throws -> ServerChannelAuthorizer {
        try ServerChannelAuthorizer(
            endpoint: httpURL.appendingPathComponent("pusher/auth"),
            headers: [.authorization: "Bearer \(token)"],
            transport: http
        )
    }
}
