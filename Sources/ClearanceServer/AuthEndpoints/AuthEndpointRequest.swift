/// One question for the app's decision closure: may `caller` (with `socketID`) have `target`?
public struct AuthEndpointRequest<Caller: Sendable>: Sendable {
    /// Who is asking, or `nil` when the request carries no recognised identity.
    public let caller: Caller?
    /// The connection's socket id (already checked: `^\d+\.\d+$`).
    public let socketID: String
    /// The channel (name already checked) or the sign-in.
    public let target: AuthorizationTarget

    /// Creates a request.
    public init(caller: Caller?, socketID: String, target: AuthorizationTarget) {
        self.caller = caller
        self.socketID = socketID
        self.target = target
    }
}
