import ClearanceWire
import Foundation

/// Reads token-endpoint requests the way RFC 6749 sends them: form bodies, and HTTP Basic
/// client credentials whose id and secret are form-urlencoded before base64 (§2.3.1).
enum OAuth2FormBody {
    /// The fields of a form body; the first value wins for a repeated name.
    static func fields(_ body: String) -> [String: String] {
        FormFields(parsing: body).firstValues
    }

    /// The client id and secret of an `Authorization: Basic` header, form-decoded.
    static func basicCredentials(_ header: String?) -> (id: String, secret: String)? {
        guard let header, header.lowercased().hasPrefix("basic ") else { return nil }
        guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let id = text[..<colon], secret = text[text.index(after: colon)...]
        return (PercentEncoding.decode(id, plusAsSpace: true) ?? String(id), PercentEncoding.decode(secret, plusAsSpace: true) ?? String(secret))
    }
}
