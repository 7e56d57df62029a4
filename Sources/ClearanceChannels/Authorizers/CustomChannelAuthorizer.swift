/// The app's own authorization logic, as an `async` closure or as a completion handler
/// (libPusher's delegate style, for Objective-C-style callers).
///
/// To refuse a channel, throw ``ChannelAuthorizationError/denied(reason:)`` (or call the
/// completion handler with neither an authorization nor an error); any other error is reported as
/// ``ChannelAuthorizationError/custom(underlying:)``. A completion handler that is never called
/// is caught by the client's authorization timeout; a second call is ignored.
public struct CustomChannelAuthorizer: ChannelAuthorizer {
    /// The `async` form.
    public typealias Authorize = @Sendable (_ socketID: String, _ channelName: String) async throws -> ChannelAuthorization
    /// The completion handler the app calls once: an authorization, or an error, or neither (denied).
    public typealias Completion = @Sendable (_ authorization: ChannelAuthorization?, _ error: (any Error)?) -> Void
    /// The completion-handler form.
    public typealias AuthorizeWithCompletion = @Sendable (_ socketID: String, _ channelName: String, _ completion: @escaping Completion) -> Void

    private let body: Authorize

    /// Authorizes with an `async` closure.
    public init(_ authorize: @escaping Authorize) {
        body = authorize
    }

    /// Authorizes with a completion handler.
    public init(completionHandler authorize: @escaping AuthorizeWithCompletion) {
        body = { socketID, channelName in
            try await CompletionBridge.run { completion in authorize(socketID, channelName, completion) }
        }
    }

    public func authorize(socketID: String, channelName: String) async throws(ChannelAuthorizationError) -> ChannelAuthorization {
        do {
            return try await body(socketID, channelName)
        } catch {
            throw ChannelAuthorizationError(wrapping: error)
        }
    }
}
