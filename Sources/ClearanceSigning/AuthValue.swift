import Clearance

/// The `auth` value of a channel authorization or a user authentication: `key:hex-signature`.
enum AuthValue {
    /// `key:<redacted>`, or only `<redacted>` when `auth` has no colon (a malformed value is
    /// shown whole nowhere: it may be the signature itself).
    static func redacted(_ auth: String) -> String {
        guard let colon = auth.firstIndex(of: ":") else { return Redactor.mask }
        return "\(auth[..<colon]):\(Redactor.mask)"
    }
}
