import Foundation
import Hummingbird

/// Identifies callers by `Authorization: Basic base64(user:password)` (RFC 7617).
public struct BasicCredentialsIdentifier<Caller: Sendable>: CallerIdentifier {
    private let resolve: @Sendable (_ user: String, _ password: String) async throws(CallerIdentificationError) -> Caller?

    /// - Parameter resolve: Returns the caller for a user name and password, or `nil`.
    public init(resolve: @escaping @Sendable (_ user: String, _ password: String) async throws(CallerIdentificationError) -> Caller?) {
        self.resolve = resolve
    }

    /// `nil` without an `Authorization` header or with another scheme.
    ///
    /// - Throws: ``CallerIdentificationError/malformedCredentials(_:)`` when the credentials are
    ///   not base64 of UTF-8 `user:password`.
    public func identify(_ request: Request) async throws(CallerIdentificationError) -> Caller? {
        guard let encoded = AuthorizationHeader.credentials(in: request, scheme: "basic") else { return nil }
        guard let data = Data(base64Encoded: encoded), let decoded = String(data: data, encoding: .utf8),
              let colon = decoded.firstIndex(of: ":")
        else {
            throw .malformedCredentials("Basic credentials must be base64 of 'user:password'.")
        }
        return try await resolve(String(decoded[..<colon]), String(decoded[decoded.index(after: colon)...]))
    }
}
