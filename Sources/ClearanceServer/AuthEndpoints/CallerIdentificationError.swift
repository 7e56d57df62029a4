import Clearance

/// Why a caller could not be identified.
public enum CallerIdentificationError: ClearanceError, Equatable {
    /// The request's credentials are malformed (for example Basic credentials that are not
    /// base64). The message must not contain the credential.
    case malformedCredentials(String)
    /// The identity store could not be reached; the caller may retry.
    case unavailable(String)

    /// Stable codes; ``qualifiedCode`` is `auth.caller.<code>`.
    public enum Code: String, Sendable, CaseIterable { case malformedCredentials, unavailable }

    public static let codeDomain = "auth.caller"

    public var code: Code {
        switch self {
        case .malformedCredentials: .malformedCredentials
        case .unavailable: .unavailable
        }
    }

    public var message: String {
        switch self {
        case .malformedCredentials(let reason), .unavailable(let reason): Redactor.scrub(reason)
        }
    }
}
