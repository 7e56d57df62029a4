import Foundation

/// JSON keys in snake_case for Swift properties in camelCase, with the acronyms Swift writes in
/// capitals (`socket_id` ⇄ `socketID`, `body_md5` ⇄ `bodyMD5`, `response_json` ⇄ `responseJSON`):
/// the Python peers and the shared vectors speak snake_case, and no test type needs `CodingKeys`.
package enum SnakeCaseKeys {
    static let acronyms: Set<String> = ["id", "md5", "json", "url"]

    /// A decoder that reads snake_case keys.
    package static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in AnyKey(camelCase(path.last!.stringValue)) }
        return decoder
    }

    /// An encoder that writes snake_case keys, sorted.
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.keyEncodingStrategy = .custom { path in AnyKey(snakeCase(path.last!.stringValue)) }
        return encoder
    }

    /// `socket_id` → `socketID`, `master_key_base64` → `masterKeyBase64`.
    static func camelCase(_ key: String) -> String {
        let words = key.split(separator: "_")
        guard let first = words.first else { return key }
        return String(first) + words.dropFirst().map { word in
            acronyms.contains(String(word)) ? word.uppercased() : word.prefix(1).uppercased() + word.dropFirst()
        }.joined()
    }

    /// `socketID` → `socket_id`, `stringToSignWithoutBodyMD5` → `string_to_sign_without_body_md5`.
    static func snakeCase(_ key: String) -> String {
        let characters = Array(key)
        var words: [String] = []
        var current = ""
        for (index, character) in characters.enumerated() {
            let previous = index > 0 ? characters[index - 1] : nil
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            let startsWord = character.isUppercase && previous.map { !$0.isUppercase || (next?.isLowercase ?? false) } ?? false
            if startsWord && !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(character)
        }
        words.append(current)
        return words.map { $0.lowercased() }.joined(separator: "_")
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        let intValue: Int? = nil
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
