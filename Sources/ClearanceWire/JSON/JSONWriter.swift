/// The one JSON writer in Clearance: builds compact JSON text member by member, in the order
/// given, for frames, signed payloads and response bodies whose exact bytes matter.
///
/// Strings are escaped as `JSON.stringify` and Python's `json.dumps(..., ensure_ascii=False)`
/// do: `"` and `\`, the short escapes `\b \f \n \r \t`, other control characters as lower-case
/// `\u00XX`, everything else (`/` and non-ASCII included) as UTF-8. Where exact bytes do not
/// matter, use `JSONEncoder`.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    package init(capacity: Int = 128) {
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    /// Adds `"name":"value"`.
    package mutating func string(_ name: String, _ value: String) {
        key(name)
        Self.appendString(value, to: &bytes)
    }

    /// Adds `"name":"value"` when `value` is not nil.
    package mutating func optionalString(_ name: String, _ value: String?) {
        if let value { string(name, value) }
    }

    /// Adds `"name":<raw>`, where `raw` is already valid JSON text.
    package mutating func raw(_ name: String, _ raw: String) {
        key(name)
        bytes.append(contentsOf: raw.utf8)
    }

    /// Adds `"name":<integer>`.
    package mutating func integer(_ name: String, _ value: Int) {
        raw(name, String(value))
    }

    /// Adds `"name":"<text of the JSON object built by body>"`: an object sent as a string,
    /// which is how Pusher carries most event data.
    package mutating func stringifiedObject(_ name: String, _ body: (inout JSONWriter) -> Void) {
        var inner = JSONWriter()
        body(&inner)
        string(name, inner.text)
    }

    /// Adds `"name":{...}`.
    package mutating func object(_ name: String, _ body: (inout JSONWriter) -> Void) {
        var inner = JSONWriter()
        body(&inner)
        key(name)
        bytes.append(contentsOf: inner.closedBytes)
    }

    /// The finished object's text.
    package var text: String { String(decoding: closedBytes, as: UTF8.self) }

    private var closedBytes: [UInt8] {
        var closed = bytes
        closed.append(UInt8(ascii: "}"))
        return closed
    }

    private mutating func key(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        Self.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// `value` as a JSON string literal.
    package static func quoted(_ value: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(value.utf8.count + 2)
        appendString(value, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    package static func appendString(_ string: String, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendString(utf8: $0, to: &output) }
    }

    /// `bytes` (UTF-8) as a JSON string literal: runs of bytes that need no escape are copied
    /// whole (an event's data can be 10 KB, and byte by byte cost a debug build dearly).
    private static func appendString(utf8 bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let hexDigits: StaticString = "0123456789abcdef"
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        output.append(quote)
        var runStart = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == quote || byte == backslash else {
                index += 1
                continue
            }
            if index > runStart { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            output.append(backslash)
            switch byte {
            case quote, backslash: output.append(byte)
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            default:
                output.append(UInt8(ascii: "u"))
                output.append(UInt8(ascii: "0"))
                output.append(UInt8(ascii: "0"))
                output.append(hexDigits.utf8Start[Int(byte >> 4)])
                output.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            }
            index += 1
            runStart = index
        }
        if index > runStart { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
        output.append(quote)
    }

    /// `{"k1":"v1","k2":"v2"}`: an object of string members, in the order given, built in one
    /// allocation (signed payloads are written on every channel authorization).
    package static func object(_ members: KeyValuePairs<String, String>) -> String {
        var capacity = 2
        for (name, value) in members { capacity += name.utf8.count + value.utf8.count + 6 }
        var output: [UInt8] = []
        output.reserveCapacity(capacity + capacity / 8)
        output.append(UInt8(ascii: "{"))
        for (offset, (name, value)) in members.enumerated() {
            if offset > 0 { output.append(UInt8(ascii: ",")) }
            appendString(name, to: &output)
            output.append(UInt8(ascii: ":"))
            appendString(value, to: &output)
        }
        output.append(UInt8(ascii: "}"))
        return String(decoding: output, as: UTF8.self)
    }

    /// `{"k1":<raw1>,"k2":<raw2>}`: an object whose member values are already JSON text.
    package static func object(raw members: [(String, String)]) -> String {
        var writer = JSONWriter()
        for (name, value) in members { writer.raw(name, value) }
        return writer.text
    }
}
