import Foundation

extension JSONValue {
    /// This value as an RFC 7519 NumericDate (a JSON number of seconds since 1970, possibly
    /// fractional): nil when it is not a number, or not a finite one.
    ///
    /// The one reading of JWT times (`exp`, `iat`, `nbf`, `auth_time`) every module uses.
    package var numericDate: Date? {
        guard case .number(let text) = self, let seconds = Double(text), seconds.isFinite else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
