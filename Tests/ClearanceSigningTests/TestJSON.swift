/// A JSON value for generating `channel_data` / `user_data`, serialized in the styles the interop
/// test needs:
/// - `python`: exactly what Python's default `json.dumps` writes (`", "` and `": "` separators,
///   `ensure_ascii=True`: every character outside printable ASCII as lower-case `\uXXXX`, with
///   surrogate pairs above U+FFFF), so the library's re-serialization reproduces it byte for byte;
/// - `compact`: what `JSONSerialization` / `JSON.stringify` write: no whitespace, raw UTF-8, `/`
///   escaped as `\/` (as `JSONSerialization` does);
/// - `spaced`: raw UTF-8 with newlines and indentation.
indirect enum TestJSON: Sendable {
    case string(String)
    case integer(Int64)
    /// A number literal whose Python `repr` is the same text (e.g. `1.5`).
    case decimal(String)
    case bool(Bool)
    case null
    case array([TestJSON])
    case object([(String, TestJSON)])

    enum Style: String, Sendable, CaseIterable {
        case python, compact, spaced
    }

    func serialized(_ style: Style) -> String {
        var output = ""
        write(style, indent: 0, to: &output)
        return output
    }

    private func write(_ style: Style, indent: Int, to output: inout String) {
        switch self {
        case let .string(value):
            Self.writeString(value, style, to: &output)
        case let .integer(value):
            output += String(value)
        case let .decimal(text):
            output += text
        case let .bool(value):
            output += value ? "true" : "false"
        case .null:
            output += "null"
        case let .array(elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += style == .python ? ", " : "," }
                if style == .spaced { output += "\n" + String(repeating: "  ", count: indent + 1) }
                element.write(style, indent: indent + 1, to: &output)
            }
            if style == .spaced, !elements.isEmpty { output += "\n" + String(repeating: "  ", count: indent) }
            output += "]"
        case let .object(members):
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += style == .python ? ", " : "," }
                if style == .spaced { output += "\n" + String(repeating: "  ", count: indent + 1) }
                Self.writeString(key, style, to: &output)
                switch style {
                case .python: output += ": "
                case .compact: output += ":"
                case .spaced: output += " :\t"
                }
                value.write(style, indent: indent + 1, to: &output)
            }
            if style == .spaced, !members.isEmpty { output += "\r\n" + String(repeating: "  ", count: indent) }
            output += "}"
        }
    }

    private static func writeString(_ value: String, _ style: Style, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "/" where style == .compact: output += "\\/"
            default:
                if scalar.value < 0x20 || (style == .python && scalar.value >= 0x7F) {
                    if scalar.value > 0xFFFF {
                        let offset = scalar.value - 0x10000
                        output += hex4(0xD800 + (offset >> 10)) + hex4(0xDC00 + (offset & 0x3FF))
                    } else {
                        output += hex4(scalar.value)
                    }
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
