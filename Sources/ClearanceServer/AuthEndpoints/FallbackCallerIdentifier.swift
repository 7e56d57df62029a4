import Hummingbird

/// Asks `first`, and `second` only when `first` recognises no identity.
///
/// Nest it to try more: `FallbackCallerIdentifier(bearer, FallbackCallerIdentifier(cookie, basic))`.
public struct FallbackCallerIdentifier<First: CallerIdentifier, Second: CallerIdentifier>: CallerIdentifier
where First.Caller == Second.Caller {
    /// The identifier asked first.
    public let first: First
    /// The identifier asked when the first returns `nil`.
    public let second: Second

    /// Combines two identifiers.
    public init(_ first: First, _ second: Second) {
        self.first = first
        self.second = second
    }

    /// The first identifier's caller, else the second's. Errors of either are passed on.
    public func identify(_ request: Request) async throws(CallerIdentificationError) -> First.Caller? {
        if let caller = try await first.identify(request) { return caller }
        return try await second.identify(request)
    }
}
