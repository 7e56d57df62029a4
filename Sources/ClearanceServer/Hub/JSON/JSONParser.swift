/// A strict JSON parser (RFC 8259) for text that arrives from clients.
///
/// It never traps on bad input: malformed text, nesting deeper than ``maxDepth`` and lone
/// surrogate escapes are reported as ``JSONParseError``. For the top-level object it can also
/// return each member's exact source text (``parseObjectMembers(_:)``), so that the hub can
/// forward a client's `data` unchanged.
struct JSONParser {
    /// Nesting deeper than this is refused, so hostile input cannot exhaust the stack.
    static let maxDepth = 64

    /// A member of the top-level object: its value and its exact source text.
    struct Member {
        let value: JSONValue
        let rawText: String
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// Parses one JSON value that spans the whole of `text` (surrounding whitespace allowed).
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(text)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw .trailingCharacters }
        return value
    }

    /// Parses `text` as a JSON object and returns its members with their source text.
    ///
    /// - Throws: ``JSONParseError/notAnObject`` when the text is valid JSON but not an object.
    static func parseObjectMembers(_ text: String) throws(JSONParseError) -> [String: Member] {
        var parser = JSONParser(text)
        parser.skipWhitespace()
        guard parser.peek() == UInt8(ascii: "{") else {
            _ = try parser.parseValue(depth: 0)
            throw .notAnObject
        }
        parser.index += 1
        var members: [String: Member] = [:]
        parser.skipWhitespace()
        if parser.peek() == UInt8(ascii: "}") {
            parser.index += 1
        } else {
            while true {
                parser.skipWhitespace()
                let key = try parser.parseString()
                parser.skipWhitespace()
                try parser.expect(UInt8(ascii: ":"))
                parser.skipWhitespace()
                let start = parser.index
                let value = try parser.parseValue(depth: 1)
                let raw = String(decoding: parser.bytes[start..<parser.index], as: UTF8.self)
                members[key] = Member(value: value, rawText: raw)
                parser.skipWhitespace()
                if parser.peek() == UInt8(ascii: ",") {
                    parser.index += 1
                    continue
                }
                try parser.expect(UInt8(ascii: "}"))
                break
            }
        }
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw .trailingCharacters }
        return members
    }

    // MARK: - Grammar

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func expect(_ byte: UInt8) throws(JSONParseError) {
        guard peek() == byte else { throw .unexpectedCharacter(offset: index) }
        index += 1
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            index += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= Self.maxDepth else { throw .tooDeep }
        guard let byte = peek() else { throw .unexpectedEnd }
        switch byte {
        case UInt8(ascii: "{"):
            return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["):
            return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try parseLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parseLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try parseLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw .unexpectedCharacter(offset: index)
        }
    }

    private mutating func parseLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw .unexpectedEnd }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw .unexpectedCharacter(offset: index + offset)
        }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            members[key] = try parseValue(depth: depth)
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return .object(members)
        }
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try parseValue(depth: depth))
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return .array(values)
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> String {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw .invalidNumber(offset: start) }
        index += 1
        if first != UInt8(ascii: "0") {
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw .invalidNumber(offset: start) }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw .invalidNumber(offset: start) }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw .unexpectedCharacter(offset: index) }
        index += 1
        var output: [UInt8] = []
        while true {
            guard let byte = peek() else { throw .unexpectedEnd }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &output)
            case 0x00..<0x20:
                throw .controlCharacterInString(offset: index - 1)
            default:
                output.append(byte)
            }
        }
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(JSONParseError) {
        guard let byte = peek() else { throw .unexpectedEnd }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw .invalidEscape(offset: index)
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw .invalidEscape(offset: index) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw .invalidEscape(offset: index)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw .invalidEscape(offset: index) }
            output.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            throw .invalidEscape(offset: index - 1)
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw .unexpectedEnd }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw .invalidEscape(offset: index)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
