/// Tries sources in order and yields the first credential one of them has.
///
/// A source that reports ``AuthorizationError/missingCredential(source:underlying:)`` or
/// ``AuthorizationError/unavailable(reason:underlying:)`` passes to the next; any other error
/// stops the search (a refused network call is not a reason to send a weaker credential).
public struct FallbackCredentialSource: CredentialSource {
    /// The sources, in order of preference, with their names.
    public let sources: [(name: String, source: any CredentialSource)]

    public init(_ sources: [(name: String, source: any CredentialSource)]) {
        self.sources = sources
    }

    public func credential() async throws(AuthorizationError) -> Credential {
        try await resolve().credential
    }

    /// The first credential found and the name of the source that gave it.
    public func resolve() async throws(AuthorizationError) -> (name: String, source: any CredentialSource, credential: Credential) {
        var last: AuthorizationError = .missingCredential(source: sources.map(\.name).joined(separator: ", "))
        for (name, source) in sources {
            do {
                return (name, source, try await source.credential().validated(source: name))
            } catch {
                switch error.code {
                case .missingCredential, .unavailable: last = error
                default: throw error
                }
            }
        }
        throw last
    }
}
