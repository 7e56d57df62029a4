import Hummingbird

/// Identifies callers by the value of one cookie (a session id, a token, …).
public struct CookieIdentifier<Caller: Sendable>: CallerIdentifier {
    /// The cookie's name.
    public let name: String
    private let resolve: @Sendable (String) async throws(CallerIdentificationError) -> Caller?

    /// - Parameters:
    ///   - name: The cookie's name.
    ///   - resolve: Returns the caller a cookie value belongs to, or `nil` for an unknown value.
    public init(name: String, resolve: @escaping @Sendable (String) async throws(CallerIdentificationError) -> Caller?) {
        self.name = name
        self.resolve = resolve
    }

    /// `nil` when the cookie is absent or empty.
    public func identify(_ request: Request) async throws(CallerIdentificationError) -> Caller? {
        guard let value = request.cookies[name]?.value, !value.isEmpty else { return nil }
        return try await resolve(value)
    }
}
