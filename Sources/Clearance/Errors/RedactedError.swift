import Foundation

/// An error whose text held a credential Clearance had just put on the request (a query
/// parameter in a failing URL, a header echoed by a library): it stands in for the error as
/// ``AuthorizationError/underlying``, with that credential masked in every text form.
///
/// ``original`` is the error as it was thrown, for code that must inspect it (`URLError.code`, …);
/// its own description may show the credential, so never log it.
public struct RedactedError: Error, Sendable, SecretRedacting, LocalizedError {
    /// The error as it was thrown. Its text may contain the credential.
    public let original: any Error
    /// The original's description with the credential (and every URL query) masked.
    public let description: String

    /// Wraps `error` when its text contains one of `secrets`; returns it unchanged otherwise.
    public static func masking(_ secrets: [String], in error: any Error) -> any Error {
        let text = String(describing: error)
        let masked = Redactor.mask(secrets, in: text)
        return masked == text ? error : RedactedError(original: error, description: Redactor.stripQueries(masked))
    }

    public var errorDescription: String? { description }
}
