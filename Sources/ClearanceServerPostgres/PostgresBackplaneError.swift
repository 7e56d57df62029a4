import Clearance

/// Why a PostgreSQL backplane cannot be used. Messages never contain the password.
public enum PostgresBackplaneError: ClearanceError, Equatable {
    /// The URL is not `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&namespace=…]`.
    case invalidURL(reason: String)
    /// A setting is outside its allowed range.
    case invalidSetting(String)

    /// Stable machine-readable codes; ``qualifiedCode`` is `backplane.postgres.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case invalidURL, invalidSetting
    }

    public static let codeDomain = "backplane.postgres"

    /// The stable code of this error.
    public var code: Code {
        switch self {
        case .invalidURL: .invalidURL
        case .invalidSetting: .invalidSetting
        }
    }

    /// A human-readable explanation. Never contains the password.
    public var message: String {
        switch self {
        case let .invalidURL(reason): "The backplane URL is not usable: \(reason)"
        case let .invalidSetting(name): "The backplane setting \(name) is out of range."
        }
    }
}
