import HTTPTypes

/// The answer of `edition_credentials`: `<credentials><userid>…</userid><password>…</password>
/// [<header name="N">V</header>…]</credentials>`, or a refusal `<credentials><error …/></credentials>`
/// (a bare `<error …/>` is read the same).
package enum PugpigCredentialsAnswer: Sendable, Equatable {
    case credentials(ContentCredentials)
    case error(PugpigErrorElement)

    /// Reads the answer; nil when it is neither form, lacks the user id or password, or names a
    /// header that is not a valid HTTP field.
    package init?(_ root: PugpigXMLElement) {
        if root.name == "error" {
            self = .error(PugpigErrorElement(root))
            return
        }
        guard root.name == "credentials" else { return nil }
        if let error = root.child("error") {
            self = .error(PugpigErrorElement(error))
            return
        }
        guard let userID = root.child("userid")?.trimmedText, let password = root.child("password")?.trimmedText, !userID.isEmpty else {
            return nil
        }
        var headers = HTTPFields()
        for header in root.children("header") {
            guard let rawName = header.attributes["name"], let name = HTTPField.Name(rawName),
                  HTTPField.isValidValue(header.trimmedText) else { return nil }
            headers.append(HTTPField(name: name, value: header.trimmedText))
        }
        self = .credentials(ContentCredentials(userID: userID, password: password, headers: headers))
    }
}
