/// The app's answer to one authorization request.
public enum AuthorizationDecision: Sendable, Hashable {
    /// Allowed (public, private and encrypted channels).
    case allow
    /// Allowed as this user: required for presence channels (the member) and for user
    /// sign-in (the user); accepted for the other channels too.
    case allowAs(AuthorizedUser)
    /// Refused: answered with 403.
    case deny
}
