import ClearanceSigning

/// Why a hub configuration cannot be used. Messages never contain secrets or tokens.
public enum HubConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
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
    /// A development user has an empty or duplicate token, or an empty, too long or duplicate id.
    case invalidUser(id: String)
    /// A limit is outside its allowed range.
    case invalidLimit(String)

    /// A human-readable explanation.
    public var description: String {
        switch self {
        case let .unreadableFile(path): "Cannot read the configuration file \(path)."
        case let .malformedFile(path, reason): "The configuration file \(path) is not usable: \(reason)."
        case .noApps: "The configuration has no apps."
        case let .invalidPort(port): "The port \(port) is outside 0…65535."
        case let .duplicateAppID(id): "Two apps have the id \(id)."
        case let .duplicateAppKey(key): "Two apps have the key \(key)."
        case let .invalidApp(id, reason): "The app \(id) is not usable: \(reason.message)"
        case let .invalidUser(id): "The development user '\(id)' needs a unique non-empty token and a unique id of 1–128 characters."
        case let .invalidLimit(name): "The limit \(name) is out of range."
        }
    }
}
