/// The member names one object of a configuration file knows, checked against the members it has,
/// so that a misspelt member (`"alowedOrigins"`) is an error that names it and the closest known
/// name, instead of a setting silently left at its default.
///
/// The hub's configuration types declare their members once (`ConfigurationMember`), and the
/// check comes from that list. A type outside this module whose values sit in a hub
/// configuration file (the development users, say) checks its object first in its
/// `init(from:)`, before reading any member: `try ConfigurationMembers(CodingKeys.self).check(decoder)`.
public struct ConfigurationMembers: Sendable, Hashable {
    /// The names the object knows, in the order given (a suggestion prefers the earlier of two
    /// names as close).
    public let names: [String]

    /// The string values of `keys`, then `more` (members another type reads from the same object).
    public init<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type, and more: [String] = []) {
        names = keys.allCases.map(\.stringValue) + more
    }

    /// `names`, in that order (a type that declares its members in a list: ``HubLimits``).
    package init(names: [String]) {
        self.names = names
    }

    /// Refuses the object `decoder` holds when it has a member that is not one of ``names``.
    ///
    /// A value that is not an object is let through: the decoding that follows says what is wrong
    /// with it.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for the first
    ///   unknown member in alphabetical order (the order of a JSON object's members is not kept),
    ///   with its path from the top of the file (`apps[0].alowedOrigins`).
    public func check(_ decoder: any Decoder) throws(HubConfigurationError) {
        guard let container = try? decoder.container(keyedBy: AnyMemberKey.self) else { return }
        let known = Set(names)
        guard let unknown = container.allKeys.map(\.stringValue).filter({ !known.contains($0) }).min() else { return }
        throw .unknownMember(
            path: Self.path(decoder.codingPath + [AnyMemberKey(stringValue: unknown)]), suggestion: suggestion(for: unknown), known: names)
    }

    /// The known name closest to `name` (the fewest letters inserted, deleted, replaced or swapped
    /// with a neighbour, ignoring case), when it is close: at most a third of `name`'s length
    /// apart, and at least one. Nil when none is.
    public func suggestion(for name: String) -> String? {
        let allowed = max(1, name.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in names {
            let distance = Self.editDistance(name.lowercased(), candidate.lowercased())
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// A coding path as a configuration file's reader writes it: `apps[0].webhooks[1].filter`.
    /// Member names that are long or hold characters that are not printable are shortened or
    /// escaped, so that a message shows them on one line.
    public static func path(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += (path.isEmpty ? "" : ".") + printable(key.stringValue)
            }
        }
        return path
    }

    /// `name`, or an escaped, quoted form of its first 64 characters when it is longer or holds
    /// anything but printable ASCII without spaces.
    private static func printable(_ name: String) -> String {
        let plain = !name.isEmpty && name.count <= 64 && name.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
        guard !plain else { return name }
        return String(name.prefix(64)).debugDescription + (name.count > 64 ? "…" : "")
    }

    /// The optimal string alignment distance: insertions, deletions, replacements and swaps of
    /// two neighbours, each counting one.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = [Int](repeating: 0, count: b.count + 1)
        var current = Array(0...b.count)
        var row = current
        for i in 1...a.count {
            previous = row
            row = current
            current = [Int](repeating: 0, count: b.count + 1)
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous[j - 2] + 1)
                }
            }
        }
        return current[b.count]
    }
}

/// A coding key for any member name, to list the members an object has.
private struct AnyMemberKey: CodingKey {
    let stringValue: String
    let intValue: Int? = nil

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        return nil
    }
}
