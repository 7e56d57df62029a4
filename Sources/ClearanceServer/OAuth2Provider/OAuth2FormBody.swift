import Foundation

/// Reads `application/x-www-form-urlencoded` bodies and HTTP Basic client credentials the way
/// RFC 6749 sends them (§2.3.1: the id and secret are form-urlencoded before base64).
enum OAuth2FormBody {
    /// The fields of a form body; the first value wins for a repeated name.
    static func fields(_ body: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in body.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            if result[name] == nil { result[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return result
    }

    /// The client id and secret of an `Authorization: Basic` header, form-decoded.
    static func basicCredentials(_ header: String?) -> (id: String, secret: String)? {
        guard let header, header.lowercased().hasPrefix("basic ") else { return nil }
        guard let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return (decode(text[..<colon]), decode(text[text.index(after: colon)...]))
    }

    private static func decode(_ component: Substring) -> String {
        let spaced = component.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
