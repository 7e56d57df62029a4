import Hummingbird

/// A request context that carries the verified customer token, set by
/// ``CustomerTokenMiddleware`` for the routes behind it.
public protocol CustomerTokenRequestContext: RequestContext {
    /// The verified customer token (nil before the middleware ran or on routes without it).
    var customerToken: VerifiedCustomerToken? { get set }
}

/// The basic ``CustomerTokenRequestContext``: Hummingbird's basic context plus the token.
public struct BasicCustomerTokenRequestContext: CustomerTokenRequestContext {
    public var coreContext: CoreRequestContextStorage
    public var customerToken: VerifiedCustomerToken?

    public init(source: Source) {
        self.coreContext = .init(source: source)
    }
}
