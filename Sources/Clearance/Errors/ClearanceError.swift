import Foundation

/// The one error convention of every Clearance module: a stable ``code`` to switch on, a
/// ``qualifiedCode`` to log and count (`clearance.unauthorized`, `oauth2.invalid_grant`,
/// `channels.auth.httpStatus`), a human ``message``, and the ``underlying`` error when there is
/// one (as Pugpig's `NSError` codes and libPusher's errors do).
///
/// Neither the message nor the description ever contains a secret: text that comes from a
/// server or an underlying error is passed through ``Redactor`` first.
public protocol ClearanceError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible, LocalizedError {
    /// The stable codes of this error type, one per failure.
    associatedtype Code: RawRepresentable & Hashable & Sendable where Code.RawValue == String
    /// The prefix of every ``qualifiedCode`` of this type (`clearance`, `oauth2`, `channels.auth`, …).
    static var codeDomain: String { get }
    /// This error's code and message, written side by side: one `switch` over the cases, each
    /// answering `.init(<code>, "<message>")`. ``code`` and ``message`` are read from it.
    var summary: ErrorSummary<Code> { get }
    /// The stable code of this error (by default, the ``summary``'s).
    var code: Code { get }
    /// `<codeDomain>.<code>`, for logs and analytics.
    var qualifiedCode: String { get }
    /// A human sentence saying what went wrong. Never contains a secret (by default, the ``summary``'s).
    var message: String { get }
    /// The error that caused this one, if any.
    var underlying: (any Error)? { get }
}

extension ClearanceError {
    public var code: Code { summary.code }
    public var message: String { summary.message }
    public var qualifiedCode: String { "\(Self.codeDomain).\(code.rawValue)" }
    public var underlying: (any Error)? { nil }
    public var description: String { "\(qualifiedCode): \(message)" }
    public var debugDescription: String { description }
    public var errorDescription: String? { message }
}
