/// The answer of `sign_in` and `renew_token`: `<token [global_auth_password="…"]>TOKEN</token>`
/// or `<error …/>`.
package enum PugpigTokenAnswer: Sendable, Equatable {
    case token(String, globalAuthPassword: String?)
    case error(PugpigErrorElement)

    /// Reads the answer; nil when it is neither form (or the token is empty).
    package init?(_ root: PugpigXMLElement) {
        switch root.name {
        case "token":
            let token = root.trimmedText
            guard !token.isEmpty else { return nil }
            self = .token(token, globalAuthPassword: root.attributes["global_auth_password"].flatMap { $0.isEmpty ? nil : $0 })
        case "error":
            self = .error(PugpigErrorElement(root))
        default:
            if let error = root.child("error") {
                self = .error(PugpigErrorElement(error))
            } else {
                return nil
            }
        }
    }
}
