import Foundation

/// Fields of an `application/x-www-form-urlencoded` body or a URL query string.
///
/// `+` decodes to a space and `%XX` to its byte; names are decoded the same way. A malformed
/// escape (or bytes that are not UTF-8 once decoded) keeps the raw text and sets
/// ``isMalformed``, so lenient callers (query strings signed by official libraries, which do
/// not escape at all) keep working and strict ones (auth endpoints) can refuse.
struct FormFields: Sendable {
    struct Field: Sendable, Equatable {
        let name: String
        let value: String
    }

    private(set) var fields: [Field] = []
    private(set) var isMalformed = false

    init(parsing text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = pair.firstIndex(of: "=") {
                name = pair[..<equals]
                value = pair[pair.index(after: equals)...]
            } else {
                name = pair[...]
                value = ""
            }
            let decodedName = Self.percentDecode(name, plusAsSpace: true)
            let decodedValue = Self.percentDecode(value, plusAsSpace: true)
            if decodedName == nil || decodedValue == nil { isMalformed = true }
            fields.append(Field(name: decodedName ?? String(name), value: decodedValue ?? String(value)))
        }
    }

    /// The first value named `name`.
    func first(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value named `name`, in order.
    func all(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// The first name that appears more than once, if any.
    var duplicateName: String? {
        var seen = Set<String>()
        for field in fields where !seen.insert(field.name).inserted {
            return field.name
        }
        return nil
    }

    /// Decodes `%XX` escapes (and `+` as a space when asked). Returns `nil` for a malformed
    /// escape or a result that is not valid UTF-8.
    static func percentDecode(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String? {
        let utf8 = Array(text.utf8)
        guard utf8.contains(UInt8(ascii: "%")) || (plusAsSpace && utf8.contains(UInt8(ascii: "+"))) else {
            return String(text)
        }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) else {
                    return nil
                }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(bytes: output, encoding: .utf8)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
