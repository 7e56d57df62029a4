/// One member of a configuration object, declared once: its name in the file and how its value
/// is read into the object.
///
/// A configuration type lists its members and decodes through that list
/// (``decode(_:from:startingFrom:and:)``): the unknown-member check (``ConfigurationMembers``)
/// and the reading both come from it, so no member can be read without being known, nor known
/// without being read. A member the file lacks keeps the value decoding starts from: the type's
/// default (as its initializer gives it), or nil.
package struct ConfigurationMember<Root>: Sendable {
    /// Its name in the file.
    package let name: String
    /// Reads the member from `container` into `root`: sets it when the file has it, or throws.
    private let read: @Sendable (_ container: KeyedDecodingContainer<SettingKey>, _ key: SettingKey, _ root: inout Root) throws -> Void

    /// A member read by `read` (one whose value is converted as it is read, say).
    package init(_ name: String, read: @escaping @Sendable (KeyedDecodingContainer<SettingKey>, SettingKey, inout Root) throws -> Void) {
        self.name = name
        self.read = read
    }

    /// A member the object must have: without it, decoding fails (`DecodingError.keyNotFound`).
    package static func required<Value: Decodable & Sendable>(_ name: String, _ member: any WritableKeyPath<Root, Value> & Sendable) -> Self {
        Self(name) { container, key, root in root[keyPath: member] = try container.decode(Value.self, forKey: key) }
    }

    /// A member the object may lack, or have as `null`: then the value decoding starts from stays.
    package static func optional<Value: Decodable & Sendable>(_ name: String, _ member: any WritableKeyPath<Root, Value> & Sendable) -> Self {
        Self(name) { container, key, root in
            if let value = try container.decodeIfPresent(Value.self, forKey: key) { root[keyPath: member] = value }
        }
    }

    /// Decodes the object `decoder` holds: refuses a member that is neither in `members` nor in
    /// `more` (members another type reads from the same object), then reads each of `members`,
    /// in order, into `start`.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)``, or the first
    ///   member's decoding error.
    package static func decode(_ members: [Self], from decoder: any Decoder, startingFrom start: Root, and more: [String] = []) throws -> Root {
        try ConfigurationMembers(names: members.map(\.name) + more).check(decoder)
        let container = try decoder.container(keyedBy: SettingKey.self)
        var root = start
        for member in members { try member.read(container, SettingKey(member.name), &root) }
        return root
    }
}
