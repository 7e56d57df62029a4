/// One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1), e.g. `Bearer error="invalid_token"`.
public struct AuthenticationChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, as sent (compare with ``hasScheme(_:)``, which ignores case).
    public var scheme: String
    /// The auth-params, keys lower-cased.
    public var parameters: [String: String]
    /// A token68 value, when the challenge carries one instead of parameters.
    public var token68: String?

    public init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = parameters
        self.token68 = token68
    }

    /// The RFC 6750 `error` parameter (`invalid_token`, `insufficient_scope`, `invalid_request`), if any.
    public var error: String? { parameters["error"] }

    /// Whether the scheme is `name`, ignoring case.
    public func hasScheme(_ name: String) -> Bool { scheme.lowercased() == name.lowercased() }

    public var description: String {
        // error and realm are safe to show; error_description may quote request data, so it is left out.
        var shown: [String] = []
        for key in ["realm", "error", "scope"] where parameters[key] != nil {
            shown.append("\(key)=\"\(parameters[key]!)\"")
        }
        return shown.isEmpty ? scheme : "\(scheme) \(shown.joined(separator: ", "))"
    }

    /// Parses every challenge in the given `WWW-Authenticate` field values. Malformed parts are skipped, never fatal.
    public static func parse(_ values: [String]) -> [AuthenticationChallenge] {
        values.flatMap { value in
            var parser = ChallengeParser(Array(value.utf8))
            return parser.parseAll()
        }
    }
}

/// A small recursive-descent parser for the `WWW-Authenticate` grammar:
/// `challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ]`, challenges separated by commas.
struct ChallengeParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseAll() -> [AuthenticationChallenge] {
        var result: [AuthenticationChallenge] = []
        while true {
            skipSeparators()
            guard index < bytes.count else { break }
            guard let scheme = token() else {
                index += 1  // a stray byte: skip it rather than fail the whole header
                continue
            }
            var challenge = AuthenticationChallenge(scheme: scheme)
            skipSpaces()
            if let value = token68() {
                challenge.token68 = value
            } else {
                while let (name, value) = parameter() {
                    challenge.parameters[name.lowercased()] = value
                }
            }
            result.append(challenge)
        }
        return result
    }

    /// `token68` followed by the end of the challenge, or nil (and nothing consumed).
    private mutating func token68() -> String? {
        let start = index
        while let b = peek(), Self.isToken68Byte(b) { index += 1 }
        guard index > start else { return nil }
        while peek() == UInt8(ascii: "=") { index += 1 }
        let end = index
        skipSpaces()
        guard peek() == nil || peek() == UInt8(ascii: ",") else {
            index = start
            return nil
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// `name = ( token / quoted-string )`, or nil (and nothing consumed) when the next thing is a new challenge.
    private mutating func parameter() -> (String, String)? {
        let start = index
        skipSeparators()
        guard let name = token() else {
            index = start
            return nil
        }
        skipSpaces()
        guard peek() == UInt8(ascii: "=") else {
            index = start
            return nil
        }
        index += 1
        skipSpaces()
        let value = peek() == UInt8(ascii: "\"") ? quoted() : (token() ?? "")
        return (name, value)
    }

    private static func isToken68Byte(_ b: UInt8) -> Bool { isAlphanumeric(b) || "-._~+/".utf8.contains(b) }

    private static func isTokenByte(_ b: UInt8) -> Bool { isAlphanumeric(b) || "!#$%&'*+-.^_`|~/".utf8.contains(b) }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpaces() {
        while let b = peek(), b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") { index += 1 }
    }

    private mutating func skipSeparators() {
        while let b = peek(), b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: ",") { index += 1 }
    }

    private mutating func token() -> String? {
        let start = index
        while let b = peek(), Self.isTokenByte(b) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    private mutating func quoted() -> String {
        index += 1  // opening quote
        var out: [UInt8] = []
        while let b = peek() {
            index += 1
            if b == UInt8(ascii: "\\"), let next = peek() {
                out.append(next)
                index += 1
            } else if b == UInt8(ascii: "\"") {
                break
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
