/// The one strict RFC 8259 JSON reader in Clearance, over UTF-8 bytes.
///
/// Signatures cover exact bytes, so the reader never re-serializes what it is asked to check:
/// ``scanObject(_:keys:)`` validates a top-level object and reports where chosen members are,
/// without building anything (channel-auth signing uses it on `channel_data` and `user_data`);
/// ``parseObjectMembers(_:)`` returns each top-level member's value together with its exact
/// source text (the hub forwards a client's `data` unchanged); ``parse(_:)`` builds a
/// ``JSONValue``.
///
/// It never traps on hostile input: nesting deeper than ``maxDepth`` containers, malformed
/// escapes, control characters and trailing garbage are errors. When building values, a lone
/// surrogate escape is an error too; plain validation accepts it, as JavaScript and Python do.
package struct JSONScanner {
    /// The deepest nesting of objects and arrays accepted, so input cannot exhaust the stack.
    package static let maxDepth = 64

    /// The JSON type of a value.
    package enum ValueKind: Sendable, Equatable {
        case string, number, object, array, literal
    }

    /// Where a member's value is in the input, in byte offsets (quotes included for strings).
    package struct Location: Sendable, Equatable {
        package var kind: ValueKind
        package var range: Range<Int>
    }

    /// What ``scanObject(_:keys:)`` found for one requested key.
    package struct Lookup: Sendable, Equatable {
        /// The last occurrence, if any.
        package var member: Location?
        /// How many times the key occurred among the top-level members.
        package var occurrences = 0
    }

    /// A top-level member: its value and its exact source text.
    package struct Member: Sendable {
        package let value: JSONValue
        package let rawText: String
    }

    private let bytes: UnsafeRawBufferPointer
    private let builds: Bool
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer, builds: Bool) {
        self.bytes = bytes
        self.builds = builds
    }

    // MARK: - Entry points

    /// Parses one JSON value spanning the whole of `text` (surrounding whitespace allowed).
    package static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try text.withUTF8Buffer { bytes -> Result<JSONValue, JSONParseError> in
            var scanner = JSONScanner(bytes, builds: true)
            return Result { () throws(JSONParseError) -> JSONValue in
                scanner.skipWhitespace()
                let value = try scanner.value(depth: 0).value ?? .null
                try scanner.expectEnd()
                return value
            }
        }.get()
    }

    /// Parses `text` as a JSON object and returns its members with their source text.
    /// - Throws: ``JSONParseError/notAnObject`` when the text is valid JSON but not an object.
    package static func parseObjectMembers(_ text: String) throws(JSONParseError) -> [String: Member] {
        try text.withUTF8Buffer { bytes -> Result<[String: Member], JSONParseError> in
            var scanner = JSONScanner(bytes, builds: true)
            return Result { () throws(JSONParseError) -> [String: Member] in
                scanner.skipWhitespace()
                guard scanner.peek() == UInt8(ascii: "{") else {
                    _ = try scanner.value(depth: 0)
                    throw .notAnObject
                }
                var members: [String: Member] = [:]
                try scanner.objectMembers(depth: 0) { (scanner: inout JSONScanner, keyRange: Range<Int>, start: Int) throws(JSONParseError) in
                    let value = try scanner.value(depth: 1).value ?? .null
                    let key = String(decoding: try scanner.decodedString(keyRange), as: UTF8.self)
                    members[key] = Member(value: value, rawText: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<scanner.index]), as: UTF8.self))
                }
                try scanner.expectEnd()
                return members
            }
        }.get()
    }

    /// Validates that `bytes` is exactly one JSON object (surrounding whitespace allowed) and
    /// looks up the given top-level keys. Returns nil when it is not such an object.
    package static func scanObject(_ bytes: UnsafeRawBufferPointer, keys: [StaticString]) -> [Lookup]? {
        var scanner = JSONScanner(bytes, builds: false)
        var lookups = [Lookup](repeating: Lookup(), count: keys.count)
        do {
            scanner.skipWhitespace()
            guard scanner.peek() == UInt8(ascii: "{") else { return nil }
            try scanner.objectMembers(depth: 0) { (scanner: inout JSONScanner, keyRange: Range<Int>, start: Int) throws(JSONParseError) in
                let kind = try scanner.value(depth: 1).kind
                let location = Location(kind: kind, range: start..<scanner.index)
                for (slot, key) in keys.enumerated() where scanner.key(keyRange, matches: key) {
                    lookups[slot].member = location
                    lookups[slot].occurrences += 1
                }
            }
            try scanner.expectEnd()
        } catch {
            return nil
        }
        return lookups
    }

    /// The UTF-8 bytes of the string literal at `range` (quotes included, already validated),
    /// escapes decoded; nil for an escape that is not valid Unicode (a lone surrogate).
    package static func decodeString(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) -> [UInt8]? {
        try? JSONScanner(bytes, builds: false).decodedString(range)
    }

    // MARK: - Grammar

    private mutating func value(depth: Int) throws(JSONParseError) -> (kind: ValueKind, value: JSONValue?) {
        guard let byte = peek() else { throw .unexpectedEnd }
        switch byte {
        case UInt8(ascii: "{"):
            var members: [String: JSONValue] = [:]
            try objectMembers(depth: depth) { (scanner: inout JSONScanner, keyRange: Range<Int>, _: Int) throws(JSONParseError) in
                let member = try scanner.value(depth: depth + 1).value
                if scanner.builds {
                    members[String(decoding: try scanner.decodedString(keyRange), as: UTF8.self)] = member ?? .null
                }
            }
            return (.object, builds ? .object(members) : nil)
        case UInt8(ascii: "["):
            guard depth < Self.maxDepth else { throw .tooDeep }
            index += 1
            var values: [JSONValue] = []
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                index += 1
            } else {
                while true {
                    skipWhitespace()
                    let element = try value(depth: depth + 1).value
                    if builds { values.append(element ?? .null) }
                    skipWhitespace()
                    if consume(UInt8(ascii: ",")) { continue }
                    try expect(UInt8(ascii: "]"))
                    break
                }
            }
            return (.array, builds ? .array(values) : nil)
        case UInt8(ascii: "\""):
            let range = try stringLiteral()
            return (.string, builds ? .string(String(decoding: try decodedString(range), as: UTF8.self)) : nil)
        case UInt8(ascii: "t"):
            try literal("true")
            return (.literal, .bool(true))
        case UInt8(ascii: "f"):
            try literal("false")
            return (.literal, .bool(false))
        case UInt8(ascii: "n"):
            try literal("null")
            return (.literal, .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            try number()
            return (.number, builds ? .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)) : nil)
        default:
            throw .unexpectedCharacter(offset: index)
        }
    }

    /// Walks `{ "key": value, … }` from its opening brace; `member` reads each value, given the
    /// key's literal range and the value's start offset.
    private mutating func objectMembers(
        depth: Int,
        _ member: (inout JSONScanner, _ keyRange: Range<Int>, _ valueStart: Int) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        guard depth < Self.maxDepth else { throw .tooDeep }
        index += 1
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw peek() == nil ? .unexpectedEnd : .unexpectedCharacter(offset: index) }
            let keyRange = try stringLiteral()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            try member(&self, keyRange, index)
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            try expect(UInt8(ascii: "}"))
            return
        }
    }

    /// Validates a string literal from its opening quote; returns its range, quotes included.
    private mutating func stringLiteral() throws(JSONParseError) -> Range<Int> {
        let start = index
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return start..<index
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw .unexpectedEnd }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 6 <= bytes.count else { throw .unexpectedEnd }
                    for offset in 2..<6 where Self.hexDigit(bytes[index + offset]) == nil {
                        throw .invalidEscape(offset: index + offset)
                    }
                    index += 6
                default:
                    throw .invalidEscape(offset: index)
                }
            case let byte where byte < 0x20:  // not `0x00..<0x20`: a debug build calls Range's `~=` per byte
                throw .controlCharacterInString(offset: index)
            default:
                index += 1
            }
        }
        throw .unexpectedEnd
    }

    /// The decoded bytes of a validated string literal; a lone surrogate is an error.
    private func decodedString(_ range: Range<Int>) throws(JSONParseError) -> [UInt8] {
        var position = range.lowerBound + 1
        let end = range.upperBound - 1
        var output: [UInt8] = []
        output.reserveCapacity(end - position)
        while position < end {
            // The bytes up to the next escape are copied whole.
            var run = position
            while run < end, bytes[run] != UInt8(ascii: "\\") { run += 1 }
            if run > position {
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[position..<run]))
                position = run
                continue
            }
            let escape = bytes[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(at: position)
                position += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    guard position + 6 <= end, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                        throw .invalidEscape(offset: position)
                    }
                    let low = hex4(at: position + 2)
                    guard (0xDC00..<0xE000).contains(low) else { throw .invalidEscape(offset: position) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw .invalidEscape(offset: position) }
                UTF8.encode(unicode) { output.append($0) }
            default:  // " \ /
                output.append(escape)
            }
        }
        return output
    }

    private mutating func number() throws(JSONParseError) {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        guard let first = peek(), Self.isDigit(first) else { throw .invalidNumber(offset: start) }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if consume(UInt8(ascii: ".")) {
            guard let digit = peek(), Self.isDigit(digit) else { throw .invalidNumber(offset: start) }
            skipDigits()
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard let digit = peek(), Self.isDigit(digit) else { throw .invalidNumber(offset: start) }
            skipDigits()
        }
    }

    private mutating func literal(_ text: StaticString) throws(JSONParseError) {
        let count = text.utf8CodeUnitCount
        for offset in 0..<count {
            guard index + offset < bytes.count else { throw .unexpectedEnd }
            guard bytes[index + offset] == text.utf8Start[offset] else { throw .unexpectedCharacter(offset: index + offset) }
        }
        index += count
    }

    // MARK: - Helpers

    private func key(_ range: Range<Int>, matches key: StaticString) -> Bool {
        let wanted = UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        let raw = UnsafeRawBufferPointer(rebasing: bytes[(range.lowerBound + 1)..<(range.upperBound - 1)])
        if !raw.contains(UInt8(ascii: "\\")) { return raw.elementsEqual(wanted) }
        guard let decoded = try? decodedString(range) else { return false }
        return decoded.elementsEqual(wanted)
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek() == byte else { return false }
        index += 1
        return true
    }

    private mutating func expect(_ byte: UInt8) throws(JSONParseError) {
        guard peek() != nil else { throw .unexpectedEnd }
        guard consume(byte) else { throw .unexpectedCharacter(offset: index) }
    }

    private mutating func expectEnd() throws(JSONParseError) {
        skipWhitespace()
        guard index == bytes.count else { throw .trailingCharacters }
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func hex4(at position: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 4 | (Self.hexDigit(bytes[position + offset]) ?? 0) }
        return value
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
