/// A small, strict RFC 8259 validator for a single top-level JSON object that reports where
/// chosen top-level members are, without building a document tree.
///
/// It is used to check `channel_data` and `user_data` exactly as they will be signed: the text is
/// never re-serialized, so the bytes a client sends are the bytes that get signed.
struct JSONObjectScanner {
    /// The JSON type of a member's value.
    enum ValueKind: Equatable {
        case string, number, object, array, literal
    }

    /// Where a member's value is in the input, in byte offsets (including quotes for strings).
    struct Member: Equatable {
        var kind: ValueKind
        var range: Range<Int>
    }

    /// The outcome for one requested key.
    struct Lookup: Equatable {
        /// The last occurrence, if any.
        var member: Member?
        /// How many times the key occurred among the top-level members.
        var occurrences = 0
    }

    /// Deeper nesting is rejected rather than risking the stack.
    static let maxDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Validates that `bytes` is exactly one JSON object (with optional surrounding whitespace)
    /// and looks up the given top-level keys. Returns `nil` when the input is not such an object.
    static func scan(_ bytes: UnsafeRawBufferPointer, keys: [StaticString]) -> [Lookup]? {
        var scanner = JSONObjectScanner(bytes: bytes)
        return scanner.scanTopLevelObject(keys: keys)
    }

    /// The UTF-8 bytes of the JSON string literal at `range` (quotes included), with escapes
    /// decoded. Returns `nil` for an escape that is not valid Unicode (a lone surrogate).
    static func decodeString(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(range.count)
        var position = range.lowerBound + 1
        let end = range.upperBound - 1
        while position < end {
            let byte = bytes[position]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                position += 1
                continue
            }
            let escape = bytes[position + 1]
            position += 2
            switch escape {
            case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            default: // "u", guaranteed by validation
                var scalarValue = hexValue(bytes, at: position)
                position += 4
                if (0xD800...0xDBFF).contains(scalarValue) {
                    guard position + 6 <= end,
                          bytes[position] == UInt8(ascii: "\\"),
                          bytes[position + 1] == UInt8(ascii: "u")
                    else { return nil }
                    let low = hexValue(bytes, at: position + 2)
                    guard (0xDC00...0xDFFF).contains(low) else { return nil }
                    scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                }
                guard let scalar = Unicode.Scalar(scalarValue) else { return nil }
                UTF8.encode(scalar) { output.append($0) }
            }
        }
        return output
    }

    // MARK: - Parsing

    private mutating func scanTopLevelObject(keys: [StaticString]) -> [Lookup]? {
        var lookups = [Lookup](repeating: Lookup(), count: keys.count)
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return nil }
        skipWhitespace()
        if !consume(UInt8(ascii: "}")) {
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\""), let keyRange = parseString() else { return nil }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return nil }
                skipWhitespace()
                let valueStart = index
                guard let kind = parseValue(depth: 1) else { return nil }
                let member = Member(kind: kind, range: valueStart..<index)
                for (slot, key) in keys.enumerated() where keyMatches(keyRange, key) {
                    lookups[slot].member = member
                    lookups[slot].occurrences += 1
                }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "}")) else { return nil }
                break
            }
        }
        skipWhitespace()
        return index == bytes.count ? lookups : nil
    }

    private mutating func parseValue(depth: Int) -> ValueKind? {
        guard let byte = peek() else { return nil }
        switch byte {
        case UInt8(ascii: "\""):
            return parseString() == nil ? nil : .string
        case UInt8(ascii: "{"):
            return parseObject(depth: depth + 1) ? .object : nil
        case UInt8(ascii: "["):
            return parseArray(depth: depth + 1) ? .array : nil
        case UInt8(ascii: "t"):
            return parseLiteral("true") ? .literal : nil
        case UInt8(ascii: "f"):
            return parseLiteral("false") ? .literal : nil
        case UInt8(ascii: "n"):
            return parseLiteral("null") ? .literal : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return parseNumber() ? .number : nil
        default:
            return nil
        }
    }

    private mutating func parseObject(depth: Int) -> Bool {
        guard depth <= Self.maxDepth, consume(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\""), parseString() != nil else { return false }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard parseValue(depth: depth) != nil else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    private mutating func parseArray(depth: Int) -> Bool {
        guard depth <= Self.maxDepth, consume(UInt8(ascii: "[")) else { return false }
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            skipWhitespace()
            guard parseValue(depth: depth) != nil else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "]"))
        }
    }

    /// Parses a string literal starting at the opening quote; returns its range including quotes.
    private mutating func parseString() -> Range<Int>? {
        let start = index
        guard consume(UInt8(ascii: "\"")) else { return nil }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return start..<index
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return nil }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"),
                     UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                     UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 6 <= bytes.count else { return nil }
                    for offset in 2..<6 where Self.hexDigit(bytes[index + offset]) == nil {
                        return nil
                    }
                    index += 6
                default:
                    return nil
                }
            case 0x00..<0x20:
                return nil
            default:
                index += 1
            }
        }
        return nil
    }

    private mutating func parseNumber() -> Bool {
        _ = consume(UInt8(ascii: "-"))
        guard let first = peek(), Self.isDigit(first) else { return false }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if consume(UInt8(ascii: ".")) {
            guard let digit = peek(), Self.isDigit(digit) else { return false }
            skipDigits()
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            if !consume(UInt8(ascii: "+")) { _ = consume(UInt8(ascii: "-")) }
            guard let digit = peek(), Self.isDigit(digit) else { return false }
            skipDigits()
        }
        return true
    }

    private mutating func parseLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            return false
        }
        index += count
        return true
    }

    // MARK: - Helpers

    private func keyMatches(_ keyRange: Range<Int>, _ key: StaticString) -> Bool {
        let wanted = UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        let raw = UnsafeRawBufferPointer(rebasing: bytes[(keyRange.lowerBound + 1)..<(keyRange.upperBound - 1)])
        if !raw.contains(UInt8(ascii: "\\")) {
            return raw.elementsEqual(wanted)
        }
        guard let decoded = Self.decodeString(bytes, range: keyRange) else { return false }
        return decoded.elementsEqual(wanted)
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private static func hexValue(_ bytes: UnsafeRawBufferPointer, at position: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 {
            value = value << 4 | (hexDigit(bytes[position + offset]) ?? 0)
        }
        return value
    }
}
