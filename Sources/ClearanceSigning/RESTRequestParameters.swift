import ClearanceWire

/// The query parameters of a request to the Pusher HTTP API, read the one way they are signed,
/// so that what is verified is what is used.
///
/// The string to sign joins `name=value` pairs with `&`, without escaping, over the decoded
/// values: a value holding `&` (sent as `%26`), or a name holding `=` (`%3D`), would sign the
/// same as other parameters, and a name in another case would sign the same as its lower-case
/// form. So names must be lower case (letters, digits, `_`, `-`, `.`, `[`, `]`), no value may
/// hold `&`, and a query is split on `&` and `=` before anything is decoded. The official
/// server libraries send nothing else.
public struct RESTRequestParameters: Sendable, Hashable {
    /// Every parameter: lower-case names, decoded values.
    public let all: [String: String]

    /// The value of `name` (a lower-case name).
    public subscript(name: String) -> String? { all[name] }

    /// Reads a query as it arrived (percent-encoded, without its `?`): split on `&`, each pair on
    /// its first `=`, then each name and value decoded (`+` is a space, as in forms).
    /// - Throws: ``SigningError/malformedQuery`` (bad percent-encoding),
    ///   ``SigningError/invalidParameterName(_:)``, ``SigningError/ambiguousParameter(_:)`` or
    ///   ``SigningError/duplicateParameter(_:)``.
    public init(percentEncodedQuery query: String) throws(SigningError) {
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            let rawName = equals.map { pair[..<$0] } ?? pair[...]
            let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? ""
            guard let name = PercentEncoding.decode(rawName, plusAsSpace: true),
                  let value = PercentEncoding.decode(rawValue, plusAsSpace: true)
            else { throw .malformedQuery }
            try Self.check(name: name, value: value)
            guard parameters.updateValue(value, forKey: name) == nil else { throw .duplicateParameter(name) }
        }
        all = parameters
    }

    /// Parameters already decoded (names must be lower case already).
    /// - Throws: ``SigningError/invalidParameterName(_:)`` or ``SigningError/ambiguousParameter(_:)``.
    public init(_ parameters: [String: String]) throws(SigningError) {
        for (name, value) in parameters { try Self.check(name: name, value: value) }
        all = parameters
    }

    /// Whether `name=value` signs as itself and nothing else.
    static func check(name: String, value: String) throws(SigningError) {
        guard !name.isEmpty, name.utf8.allSatisfy(isNameByte) else { throw .invalidParameterName(name) }
        guard !value.utf8.contains(UInt8(ascii: "&")) else { throw .ambiguousParameter(name) }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "["), UInt8(ascii: "]"):
            true
        default:
            false
        }
    }
}
