/// Why a caller could not be identified.
public enum CallerIdentificationError: Error, Sendable, Equatable {
    /// The request's credentials are malformed (for example Basic credentials that are not
    /// base64). The message must not contain the credential.
    case malformedCredentials(String)
    /// The identity store could not be reached; the caller may retry.
    case unavailable(String)
}
