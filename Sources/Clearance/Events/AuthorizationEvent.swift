import Foundation

/// A change in authorization state. Carries names, codes and dates, never a secret.
public enum AuthorizationEvent: Sendable, CustomStringConvertible {
    /// A source fetched a new credential.
    case refreshed(source: String, expiresAt: Date?)
    /// A source dropped its credential (refused by the server, or invalidated by the app).
    case invalidated(source: String)
    /// A source failed to produce a credential.
    case failed(source: String, error: AuthorizationError)

    /// The source the event is about.
    public var source: String {
        switch self {
        case .refreshed(let source, _), .invalidated(let source), .failed(let source, _): source
        }
    }

    public var description: String {
        switch self {
        case .refreshed(let source, let expiry): "refreshed(\(source)\(expiry.map { ", expires \($0)" } ?? ""))"
        case .invalidated(let source): "invalidated(\(source))"
        case .failed(let source, let error): "failed(\(source), \(error.qualifiedCode))"
        }
    }
}
