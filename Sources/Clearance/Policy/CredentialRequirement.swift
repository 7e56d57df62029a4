/// What an endpoint needs: nothing, the credential of one named source, or the first of several.
public enum CredentialRequirement: Sendable, Hashable, CustomStringConvertible {
    /// Send the request without a credential.
    case none
    /// Use the source registered under this name; if it has nothing, fail with ``AuthorizationError/missingCredential(source:underlying:)``.
    case source(String)
    /// Try these sources in order (see ``FallbackCredentialSource``).
    case firstAvailable([String])

    /// The source names this requirement refers to.
    public var sourceNames: [String] {
        switch self {
        case .none: []
        case .source(let name): [name]
        case .firstAvailable(let names): names
        }
    }

    public var description: String {
        switch self {
        case .none: "none"
        case .source(let name): "source(\(name))"
        case .firstAvailable(let names): "firstAvailable(\(names.joined(separator: ", ")))"
        }
    }
}
