import Clearance

/// Why a caller could not be identified.
public enum CallerIdentificationError: ClearanceError, Equatable {
    /// The request's credentials are malformed (for example Basic credentials that are not
    /// base64). The message must not contain the credential.
    case malformedCredentials(String)
    /// The identity store could not be reached; the caller may retry.
    case unavailable(String)

    public static let codeDomain = "auth.caller"

    /// Each case's code and message (the reason given, redacted).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .malformedCredentials(let reason): .init(.malformedCredentials, Redactor.scrub(reason))
        case .unavailable(let reason): .init(.unavailable, Redactor.scrub(reason))
        }
    }

    /// Stable codes; ``qualifiedCode`` is `auth.caller.<code>`.
    public enum Code: String, Sendable, CaseIterable { case malformedCredentials, unavailable }
}
