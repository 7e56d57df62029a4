/// The fields of an `application/x-www-form-urlencoded` body or a URL query string, in order.
///
/// Reading is lenient and says so: `+` decodes to a space and `%HH` to its byte; a malformed
/// escape (or bytes that are not UTF-8 once decoded) keeps the raw text and sets
/// ``isMalformed``, so lenient callers (query strings signed by official libraries, which do not
/// escape at all) keep working and strict ones (auth endpoints, token requests) can refuse.
package struct FormFields: Sendable, Equatable {
    /// One `name=value` pair.
    package struct Field: Sendable, Equatable {
        package let name: String
        package let value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// How names and values are written by ``encoded(_:)``.
    package enum Style: Sendable {
        /// WHATWG `application/x-www-form-urlencoded` (space as `+`); what RFC 6749 requires.
        case form
        /// RFC 3986 percent-encoding (space as `%20`).
        case rfc3986
    }

    package private(set) var fields: [Field] = []
    package private(set) var isMalformed = false

    /// Parses `text` (a body, or a query without its `?`): split at each `&` byte, each part at
    /// its first `=` byte, as the WHATWG URL standard reads a form. It walks the UTF-8 bytes, not
    /// the characters (a body may hold a 60 KB field).
    package init(parsing text: String) {
        let ampersand = UInt8(ascii: "&"), equals = UInt8(ascii: "=")
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            while start < bytes.count {
                var end = start
                var separator: Int?
                while end < bytes.count, bytes[end] != ampersand {
                    if separator == nil, bytes[end] == equals { separator = end }
                    end += 1
                }
                if end > start {
                    let name = UnsafeBufferPointer(rebasing: bytes[start..<(separator ?? end)])
                    let value = UnsafeBufferPointer(rebasing: bytes[(separator.map { $0 + 1 } ?? end)..<end])
                    let decodedName = PercentEncoding.decode(utf8: name, plusAsSpace: true)
                    let decodedValue = PercentEncoding.decode(utf8: value, plusAsSpace: true)
                    if decodedName == nil || decodedValue == nil { isMalformed = true }
                    fields.append(Field(
                        name: decodedName ?? String(decoding: name, as: UTF8.self),
                        value: decodedValue ?? String(decoding: value, as: UTF8.self)))
                }
                start = end + 1
            }
        }
    }

    /// Fields from pairs.
    package init(_ pairs: [(name: String, value: String)]) {
        fields = pairs.map { Field(name: $0.name, value: $0.value) }
    }

    /// The first value named `name`.
    package func first(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Every value named `name`, in order.
    package func all(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// The first name that appears more than once, if any.
    package var duplicateName: String? {
        var seen = Set<String>()
        for field in fields where !seen.insert(field.name).inserted {
            return field.name
        }
        return nil
    }

    /// The fields as a dictionary; the first value wins for a repeated name.
    package var firstValues: [String: String] {
        var result: [String: String] = [:]
        for field in fields where result[field.name] == nil { result[field.name] = field.value }
        return result
    }

    /// `name=value&name=value`, in order.
    package func encoded(_ style: Style = .form) -> String {
        func escape(_ text: String) -> String {
            switch style {
            case .form: PercentEncoding.formEncode(text)
            case .rfc3986: PercentEncoding.encode(text)
            }
        }
        return fields.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&")
    }

    /// `name=value&name=value` for `pairs`, in order.
    package static func encode(_ pairs: [(name: String, value: String)], style: Style = .form) -> String {
        FormFields(pairs).encoded(style)
    }
}
