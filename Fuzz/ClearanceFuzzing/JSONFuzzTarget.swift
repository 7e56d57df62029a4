import ClearanceWire
import Foundation

extension FuzzTarget {
    /// The one JSON reader (`JSONScanner`): `parse`, `parseObjectMembers`, `scanObject`,
    /// `decodeString`, and `JSONValue`'s writer.
    ///
    /// Invariants: parse → write → parse gives the same value; `parseObjectMembers` agrees with
    /// `parse` member by member, each member's exact source text parses to its value; the
    /// validating `scanObject` accepts whatever the building readers accept and finds the same keys.
    static let json = FuzzTarget(name: "json", summary: "JSONScanner.parse/parseObjectMembers/scanObject, JSONValue.write") { data throws(FuzzViolation) in
        let text = String(decoding: data, as: UTF8.self)
        let value = try? JSONScanner.parse(text)
        if let value {
            let written = value.jsonText
            try FuzzViolation.require((try? JSONScanner.parse(written)) == value, "parse → write → parse changed the value: \(written)")
        }
        let keys: [StaticString] = ["event", "data", "channel"]
        let lookups = text.withUTF8Buffer { bytes -> [JSONScanner.Lookup]? in
            guard let lookups = JSONScanner.scanObject(bytes, keys: keys) else { return nil }
            for lookup in lookups {
                if let member = lookup.member, member.kind == .string { _ = JSONScanner.decodeString(bytes, range: member.range) }
            }
            return lookups
        }
        guard let members = try? JSONScanner.parseObjectMembers(text) else { return }
        try FuzzViolation.require(value?.objectValue?.count == members.count, "parseObjectMembers and parse disagree on the members")
        for (key, member) in members {
            try FuzzViolation.require(value?[key] == member.value, "member \(key) differs from parse")
            try FuzzViolation.require((try? JSONScanner.parse(member.rawText)) == member.value, "member \(key)'s source text does not parse to its value")
        }
        guard let lookups else { throw FuzzViolation(description: "scanObject refused an object parseObjectMembers accepted") }
        for (index, key) in ["event", "data", "channel"].enumerated() {
            try FuzzViolation.require((lookups[index].member != nil) == (members[key] != nil), "scanObject and parseObjectMembers disagree on \(key)")
        }
    }
}
