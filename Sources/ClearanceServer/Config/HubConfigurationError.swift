import Clearance
import ClearanceSigning

/// Why a hub configuration cannot be used. Messages never contain secrets or tokens.
public enum HubConfigurationError: ClearanceError, Equatable {
    /// The file could not be read.
    case unreadableFile(path: String)
    /// The file is not valid JSON or does not have the configuration's shape.
    case malformedFile(path: String, reason: String)
    /// No app is configured.
    case noApps
    /// The port is outside 0…65535.
    case invalidPort(Int)
    /// Two apps share an id.
    case duplicateAppID(String)
    /// Two apps share a key.
    case duplicateAppKey(String)
    /// An app's id, key, secret or master key is unusable.
    case invalidApp(id: String, reason: SigningError)
    /// A limit is outside its allowed range.
    case invalidLimit(String)
    /// Two limits cannot be used together (the message says why).
    case conflictingLimits(String)
    /// An entry of an app's `allowedOrigins` is not an origin `scheme://host[:port]`.
    case invalidAllowedOrigin(appID: String, origin: String, problem: WebOriginProblem)
    /// The configuration sets a limit that no longer exists; `replacement` took its place.
    case removedLimit(String, replacement: String)

    public static let codeDomain = "hub.configuration"

    /// The app's signing error, for ``invalidApp(id:reason:)``.
    public var underlying: (any Error)? {
        if case let .invalidApp(_, reason) = self { return reason }
        return nil
    }

    /// Each case's code and message (which never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case let .unreadableFile(path): .init(.unreadableFile, "Cannot read the configuration file \(path).")
        case let .malformedFile(path, reason): .init(.malformedFile, "The configuration file \(path) is not usable: \(reason).")
        case .noApps: .init(.noApps, "The configuration has no apps.")
        case let .invalidPort(port): .init(.invalidPort, "The port \(port) is outside 0…65535.")
        case let .duplicateAppID(id): .init(.duplicateAppID, "Two apps have the id \(id).")
        case let .duplicateAppKey(key): .init(.duplicateAppKey, "Two apps have the key \(key).")
        case let .invalidApp(id, reason): .init(.invalidApp, "The app \(id) is not usable: \(reason.message)")
        case let .invalidLimit(name): .init(.invalidLimit, "The limit \(name) is out of range\(HubLimits.allowedRange(of: name).map { " (allowed: \($0))" } ?? "").")
        case let .conflictingLimits(reason): .init(.conflictingLimits, "The limits do not fit together: \(reason).")
        case let .invalidAllowedOrigin(id, origin, problem):
            .init(.invalidAllowedOrigin, "The app \(id) allows the origin '\(origin)', which is not usable: \(problem) (write an origin as https://app.example.com or http://localhost:8080).")
        case let .removedLimit(name, replacement): .init(.removedLimit, "The limit \(name) was removed: set \(replacement) instead (see the README's \"Hub limits\").")
        }
    }

    /// Stable machine-readable codes; ``qualifiedCode`` is `hub.configuration.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case unreadableFile, malformedFile, noApps, invalidPort, duplicateAppID, duplicateAppKey, invalidApp, invalidLimit
        case conflictingLimits, removedLimit, invalidAllowedOrigin
    }
}
