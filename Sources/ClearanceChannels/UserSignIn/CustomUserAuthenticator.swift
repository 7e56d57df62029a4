/// The app's own sign-in logic, as an `async` closure or a completion handler.
/// Throw ``ChannelAuthorizationError/denied(reason:)`` to refuse.
public struct CustomUserAuthenticator: UserAuthenticator {
    /// The `async` form.
    public typealias Authenticate = @Sendable (_ socketID: String) async throws -> UserAuthentication
    /// The completion-handler form: call it once with an authentication, or an error, or neither (denied).
    public typealias AuthenticateWithCompletion = @Sendable (_ socketID: String, _ completion: @escaping @Sendable (UserAuthentication?, (any Error)?) -> Void) -> Void

    private let body: Authenticate

    /// Authenticates with an `async` closure.
    public init(_ authenticate: @escaping Authenticate) {
        body = authenticate
    }

    /// Authenticates with a completion handler.
    public init(completionHandler authenticate: @escaping AuthenticateWithCompletion) {
        body = { socketID in
            try await CompletionBridge.run { completion in authenticate(socketID, completion) }
        }
    }

    public func authenticate(socketID: String) async throws(ChannelAuthorizationError) -> UserAuthentication {
        do {
            return try await body(socketID)
        } catch {
            throw ChannelAuthorizationError(wrapping: error)
        }
    }
}
