import Clearance

/// Who the customer is, as Bloomreach names customers: ids by type, e.g.
/// `["registered": "jane@example.com"]`. A customer token's `sub` claim is this object.
///
/// The ids are personal data: ``description``, `debugDescription` and reflection show the id
/// types only, never the values.
public struct CustomerIDs: Sendable, Hashable, Codable, ExpressibleByDictionaryLiteral {
    /// The ids by type (`registered`, `cookie`, …).
    public let values: [String: String]

    /// No ids: an anonymous customer, for whom no customer token is asked.
    public static let anonymous = CustomerIDs([:])

    /// The customer with these ids.
    public init(_ values: [String: String]) {
        self.values = values
    }

    /// `["registered": "jane@example.com"]`. A repeated type keeps its last id.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// True when there are no ids.
    public var isAnonymous: Bool { values.isEmpty }

    public init(from decoder: any Decoder) throws {
        values = try decoder.singleValueContainer().decode([String: String].self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(values)
    }
}

extension CustomerIDs: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `CustomerIDs(registered: <redacted>)`, or `CustomerIDs(anonymous)`.
    public var description: String {
        guard !isAnonymous else { return "CustomerIDs(anonymous)" }
        return "CustomerIDs(\(values.keys.sorted().map { "\($0): \(Redactor.mask)" }.joined(separator: ", ")))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: values.keys.sorted().map { (label: $0, value: Redactor.mask as Any) }, displayStyle: .dictionary)
    }
}
