import Hummingbird

/// Reads `Authorization: <scheme> <credentials>` (RFC 9110 §11.6.2) for the caller identifiers.
enum AuthorizationHeader {
    /// The credentials after `scheme` (compared ignoring case), trimmed; "" when the scheme
    /// stands alone; nil without the header or with another scheme.
    static func credentials(in request: Request, scheme: String) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard let first = parts.first, first.lowercased() == scheme else { return nil }
        return parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
    }
}
