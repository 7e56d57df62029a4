import Foundation

/// `application/x-www-form-urlencoded` as RFC 6749 Appendix B requires (the WHATWG URL
/// standard's serializer): UTF-8, ASCII letters, digits and `*-._` kept, space as `+`,
/// every other byte as `%HH` with upper-case hex.
///
/// Used for every token, device and revocation request body, and for the client id and secret
/// before they go into HTTP Basic (RFC 6749 §2.3.1).
public enum FormEncoding {
    /// Encodes one name or value.
    public static func encode(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                output.append("+")
            default:
                output.append("%")
                output.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte >> 4)]))
                output.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte & 0x0F)]))
            }
        }
        return output
    }

    /// Encodes `fields` in order as `name=value&name=value`.
    public static func encode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
    }

    /// Decodes a form body into its fields, in order. `+` is a space; a malformed `%` escape is
    /// kept as it is. Used by tests and the development provider.
    public static func decode(_ body: String) -> [(name: String, value: String)] {
        body.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decodeComponent(parts[0])
            let value = parts.count > 1 ? decodeComponent(parts[1]) : ""
            return (name, value)
        }
    }

    private static func decodeComponent(_ component: Substring) -> String {
        let spaced = component.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
