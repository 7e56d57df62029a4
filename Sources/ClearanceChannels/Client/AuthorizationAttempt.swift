/// The outcome of one bounded authorization attempt.
enum AuthorizationAttempt<Value: Sendable>: Sendable {
    case success(Value)
    case failure(ChannelAuthorizationError)
    case cancelled
}
