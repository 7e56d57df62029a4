/// A JSON value, as Clearance reads it from frames, request bodies and configuration files
/// (``JSONScanner`` parses it).
///
/// Numbers keep the text they were written with (`1.50`, `1e400` and 20-digit ids survive a
/// round trip unchanged); objects are written back with their keys sorted, so ``jsonText`` is
/// deterministic byte for byte.
public enum JSONValue: Sendable, Hashable {
    /// `null`
    case null
    /// `true` or `false`
    case bool(Bool)
    /// A number, as its JSON text.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Duplicate keys keep the last value.
    case object([String: JSONValue])

    /// Compact JSON text: no insignificant whitespace, object keys sorted by their UTF-8 bytes.
    public var jsonText: String {
        var output: [UInt8] = []
        write(to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case let .string(value) = self { value } else { nil }
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case let .object(value) = self { value } else { nil }
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case let .array(value) = self { value } else { nil }
    }

    /// The member named `key`, when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// A string's value or a number's text: how servers send ids (`"42"` or `42`).
    public var scalarText: String? {
        switch self {
        case let .string(value), let .number(value): value
        default: nil
        }
    }

    /// A whole number, from a number or from a string of digits (servers send both).
    public var intValue: Int? {
        switch self {
        case let .number(text): Int(text) ?? Double(text).flatMap { $0.rounded() == $0 && abs($0) < 1e15 ? Int($0) : nil }
        case let .string(text): Int(text)
        default: nil
        }
    }

    /// `text` parsed as JSON, or nil when it is not valid JSON.
    package init?(parsing text: String) {
        guard let value = try? JSONScanner.parse(text) else { return nil }
        self = value
    }

    package func write(to output: inout [UInt8]) {
        switch self {
        case .null:
            output.append(contentsOf: "null".utf8)
        case let .bool(value):
            output.append(contentsOf: (value ? "true" : "false").utf8)
        case let .number(text):
            output.append(contentsOf: text.utf8)
        case let .string(value):
            JSONWriter.appendString(value, to: &output)
        case let .array(values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case let .object(members):
            output.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                members[key]!.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value. Numbers decoded through `Decoder` are kept as integers when they
    /// are whole and fit in 64 bits, else as `Double` text.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(value.isFinite ? "\(value)" : "null")
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value; numbers are encoded from their text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .number(text):
            if let integer = Int64(text) {
                try container.encode(integer)
            } else {
                try container.encode(Double(text) ?? 0)
            }
        case let .string(value): try container.encode(value)
        case let .array(values): try container.encode(values)
        case let .object(members): try container.encode(members)
        }
    }
}
