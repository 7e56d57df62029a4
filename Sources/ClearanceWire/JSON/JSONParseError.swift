/// Why a text is not acceptable JSON. Offsets are UTF-8 byte offsets into the input.
package enum JSONParseError: Error, Sendable, Hashable {
    /// The input ended in the middle of a value.
    case unexpectedEnd
    /// A character that cannot start or continue a value here.
    case unexpectedCharacter(offset: Int)
    /// A malformed number.
    case invalidNumber(offset: Int)
    /// A malformed escape sequence, or a lone surrogate.
    case invalidEscape(offset: Int)
    /// An unescaped control character inside a string.
    case controlCharacterInString(offset: Int)
    /// Something follows the value.
    case trailingCharacters
    /// Nesting deeper than the parser allows.
    case tooDeep
    /// Valid JSON, but not an object where one is required.
    case notAnObject
}
