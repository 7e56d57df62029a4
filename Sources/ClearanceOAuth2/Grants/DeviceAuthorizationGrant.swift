import Clearance
/// The device authorization grant (RFC 8628) for input-constrained devices and terminals.
///
/// Asks for a device code, hands the user code and verification URI to ``present``, then polls
/// the token endpoint: `authorization_pending` keeps polling, `slow_down` adds 5 s to this and
/// every later interval, a network failure or 5xx doubles the interval (§3.5),
/// `access_denied` and `expired_token` stop. Polls never go past the codes' expiry. The waits
/// use the server's clock, so a test clock makes the flow instant.
public struct DeviceAuthorizationGrant: OAuth2Grant {
    /// The scopes to ask for; `nil` uses the session's.
    public var scopes: [String]?
    /// Shows the user where to go and what to type. Called once, before polling starts.
    public var present: @Sendable (DeviceAuthorizationPrompt) async -> Void

    public init(scopes: [String]? = nil, present: @escaping @Sendable (DeviceAuthorizationPrompt) async -> Void) {
        self.scopes = scopes
        self.present = present
    }

    public var grantName: String { "device_code" }

    /// The grant type RFC 8628 §3.4 defines.
    public static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    public func requestToken(from server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        let authorization = try await server.requestDeviceAuthorization(scopes: scopes)
        await present(authorization.prompt)
        return try await Self.poll(authorization, server: server)
    }

    /// Polls the token endpoint for `authorization` until the user decides or the codes expire.
    public static func poll(_ authorization: DeviceAuthorization, server: AuthorizationServer) async throws(OAuth2Error) -> TokenResponse {
        var schedule = DevicePollSchedule(interval: authorization.interval, issuedAt: authorization.receivedAt, expiresIn: authorization.expiresIn)
        let fields: [(name: String, value: String)] = [("grant_type", grantType), ("device_code", authorization.deviceCode)]
        while true {
            guard let delay = schedule.nextDelay(now: server.clock.uptime) else {
                throw .server(OAuth2ServerError(code: "expired_token", description: "the device code expired before the user approved", httpStatus: 0))
            }
            do {
                try await server.clock.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            do {
                return try await server.requestToken(fields)
            } catch {
                switch error {
                case .server(let answer) where answer.kind == .authorizationPending:
                    server.logger.trace("device authorization pending")
                case .server(let answer) where answer.kind == .slowDown:
                    schedule.slowDown()
                    server.logger.debug("device polling slowed down", metadata: ["interval": "\(OAuth2Error.seconds(schedule.interval))"])
                case .networkFailure, .serverUnavailable:
                    schedule.backOff()
                    server.logger.debug("device polling backing off", metadata: ["interval": "\(OAuth2Error.seconds(schedule.interval))", "code": "\(error.qualifiedCode)"])
                default:
                    throw error
                }
            }
        }
    }
}

extension DeviceAuthorizationGrant: SecretRedacting {
    public var description: String { "DeviceAuthorizationGrant(scopes: \(scopes?.joined(separator: " ") ?? "default"))" }
}
