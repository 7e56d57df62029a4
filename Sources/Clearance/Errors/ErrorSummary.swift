/// One error case's stable code and its message, written side by side in a single `switch`
/// (a ``ClearanceError``'s ``ClearanceError/summary``) so that the two cannot drift apart.
///
/// The message is built only when it is read: reading a ``ClearanceError/code`` builds no text
/// (only the closure that would), and a message may mention the error's own code.
///
/// ```swift
/// public var summary: ErrorSummary<Code> {
///     switch self {
///     case .expired(let reason): .init(.expired, "The credential expired: \(Redactor.scrub(reason)).")
///     case .cancelled: .init(.cancelled, "The request was cancelled.")
///     }
/// }
/// ```
public struct ErrorSummary<Code> {
    /// The case's stable code.
    public let code: Code
    private let makeMessage: () -> String

    /// - Parameters:
    ///   - code: The case's stable code.
    ///   - message: The case's human sentence, evaluated when ``message`` is read. It must
    ///     never contain a secret: pass text from a server or an underlying error through
    ///     ``Redactor`` first.
    public init(_ code: Code, _ message: @escaping @autoclosure () -> String) {
        self.code = code
        self.makeMessage = message
    }

    /// The case's human sentence.
    public var message: String { makeMessage() }
}
