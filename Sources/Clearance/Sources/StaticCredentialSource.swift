/// A source that always yields the same credential (an API key, a long-lived token).
public struct StaticCredentialSource: CredentialSource {
    /// The name used in errors and logs.
    public let name: String
    private let value: Credential

    /// - Parameters:
    ///   - credential: The credential to yield. An empty one is reported as ``AuthorizationError/missingCredential(source:underlying:)`` on use.
    ///   - name: The name used in errors and logs.
    public init(_ credential: Credential, name: String = "static") {
        self.value = credential
        self.name = name
    }

    public func credential() async throws(AuthorizationError) -> Credential {
        try value.validated(source: name)
    }
}
