/// Deterministic JSON text for flat objects of string members.
///
/// Members are written in the given order (callers pass them sorted by key) with no
/// insignificant whitespace. Strings escape `"` and `\`, use the short escapes `\b \f \n \r \t`,
/// write other control characters as lower-case `\u00XX`, and leave everything else, including
/// `/` and non-ASCII, as UTF-8. That is byte for byte what `JSON.stringify` and Python's
/// `json.dumps(..., separators=(",", ":"), ensure_ascii=False)` produce.
enum JSONText {
    /// `{"k1":"v1","k2":"v2"}` with members in the order given.
    static func object(_ members: KeyValuePairs<String, String>) -> String {
        var output: [UInt8] = []
        var capacity = 2
        for (key, value) in members { capacity += key.utf8.count + value.utf8.count + 6 }
        output.reserveCapacity(capacity + capacity / 8)
        output.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in members {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            appendString(key, to: &output)
            output.append(UInt8(ascii: ":"))
            appendString(value, to: &output)
        }
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }

    private static func appendString(_ string: String, to output: inout [UInt8]) {
        let hexDigits: StaticString = "0123456789abcdef"
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                output.append(contentsOf: [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hexDigits.utf8Start[Int(byte >> 4)], hexDigits.utf8Start[Int(byte & 0x0F)],
                ])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
