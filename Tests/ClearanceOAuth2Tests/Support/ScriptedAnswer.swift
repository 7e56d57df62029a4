/// An answer the test server gives instead of its normal one.
enum ScriptedAnswer: Sendable {
    /// A bare status with a body.
    case status(Int, body: String = "", retryAfter: Int? = nil)
    /// An RFC 6749 §5.2 error object with the given HTTP status (200 for the servers that do that).
    case oauthError(String, status: Int = 400, description: String? = nil)
    /// A normal answer (lets a script say "then succeed").
    case normal
}
