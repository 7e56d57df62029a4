import Hummingbird

/// Identifies callers by `Authorization: Bearer <token>`.
public struct BearerTokenIdentifier<Caller: Sendable>: CallerIdentifier {
    private let resolve: @Sendable (String) async throws(CallerIdentificationError) -> Caller?

    /// - Parameter resolve: Returns the caller a token belongs to, or `nil` for an unknown token.
    public init(resolve: @escaping @Sendable (String) async throws(CallerIdentificationError) -> Caller?) {
        self.resolve = resolve
    }

    /// `nil` without an `Authorization` header or with another scheme.
    public func identify(_ request: Request) async throws(CallerIdentificationError) -> Caller? {
        guard let token = AuthorizationHeader.credentials(in: request, scheme: "bearer") else { return nil }
        guard !token.isEmpty else { throw .malformedCredentials("The Bearer token is empty.") }
        return try await resolve(token)
    }
}
