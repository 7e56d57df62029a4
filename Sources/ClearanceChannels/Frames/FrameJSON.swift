import Foundation

/// The little JSON the wire frames need: parse an object, write a string literal, re-serialize a
/// value. Frames are small; Foundation's parser is fine for them.
enum FrameJSON {
    /// `text` parsed as any JSON value (fragments allowed), or nil.
    static func value(_ text: String) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    /// `text` parsed as a JSON object, or nil.
    static func object(_ text: String) -> [String: Any]? {
        value(text) as? [String: Any]
    }

    /// A JSON value written back to compact text (keys sorted, so output is stable).
    static func text(_ value: Any) -> String? {
        guard JSONSerialization.isValidJSONObject([value]) || value is String || value is NSNumber || value is NSNull else {
            return nil
        }
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]) else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `string` as a JSON string literal, quotes included.
    static func quoted(_ string: String) -> String {
        var result = "\""
        result.reserveCapacity(string.utf8.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A JSON object from members whose values are already JSON text, in the given order.
    static func object(raw members: [(String, String)]) -> String {
        "{" + members.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A string member's value, or the text of a number member (servers send ids either way).
    static func string(_ value: Any?) -> String? {
        switch value {
        case let string as String: string
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }

    /// An integer member's value, also from a string holding digits.
    static func int(_ value: Any?) -> Int? {
        switch value {
        case let number as NSNumber: number.intValue
        case let string as String: Int(string)
        default: nil
        }
    }
}
