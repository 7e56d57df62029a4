import Hummingbird

/// Says who is calling an auth endpoint, from what the request carries (a Bearer token, a
/// cookie, HTTP Basic credentials, …).
///
/// One requirement; combine identifiers with ``FallbackCallerIdentifier``.
public protocol CallerIdentifier<Caller>: Sendable {
    /// Whatever the app uses to represent a caller (a user record, an id, …).
    associatedtype Caller: Sendable

    /// The caller, or `nil` when the request carries no identity this identifier recognises.
    ///
    /// - Throws: ``CallerIdentificationError/malformedCredentials(_:)`` (answered with 400) or
    ///   ``CallerIdentificationError/unavailable(_:)`` (answered with 503).
    func identify(_ request: Request) async throws(CallerIdentificationError) -> Caller?
}
