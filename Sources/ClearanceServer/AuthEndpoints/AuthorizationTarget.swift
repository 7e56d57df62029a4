import ClearanceSigning

/// What a caller asks to be authorized for.
public enum AuthorizationTarget: Sendable, Hashable {
    /// A channel subscription (`POST /pusher/auth`). `kind` is decided by the name's prefix.
    case channel(name: String, kind: ChannelNameKind)
    /// A user sign-in (`POST /pusher/user-auth`).
    case userSignIn
}
