import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// ``HubLimits``' members are declared once (`HubLimits.settings`): decoding, encoding,
/// validation and the documentation's table of limits follow that list, and a member the list
/// does not hold, or a table row that says another default or range, fails here.
@Suite("Hub limits declared once")
struct HubLimitsDeclarationTests {
    /// The rows of the table of limits in Limits.md: member → (default, range).
    static func tableRows() throws -> [String: (default: String, range: String)] {
        let file = try PackageRoot.url().appending(path: "Sources/ClearanceServer/Documentation.docc/Limits.md")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        guard let header = lines.firstIndex(where: { $0.hasPrefix("| Member | Default | Range |") }) else {
            throw ChildProcess.Failure("Limits.md has no table of limits")
        }
        var rows: [String: (default: String, range: String)] = [:]
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("| ") else { break }
            let cells = line.dropFirst(2).components(separatedBy: " | ")
            guard cells.count >= 3 else { throw ChildProcess.Failure("a row of fewer than three cells: \(line)") }
            let member = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            #expect(rows[member] == nil, "\(member) has two rows")
            rows[member] = (cells[1], cells[2])
        }
        return rows
    }

    @Test func theTableOfLimitsHasOneRowPerSettingWithItsDefaultAndRange() throws {
        let rows = try Self.tableRows()
        let defaults = HubLimits()
        #expect(Set(rows.keys) == Set(HubLimits.settings.map(\.name)), "rows not declared, or settings without a row")
        for setting in HubLimits.settings {
            guard let row = rows[setting.name] else { continue }
            #expect(row.default == setting.tableDefault(defaults), "\(setting.name): the table says \(row.default)")
            #expect(row.range == setting.tableRange, "\(setting.name): the table says \(row.range)")
        }
    }

    @Test func everyStoredMemberIsDeclared() {
        let stored = Mirror(reflecting: HubLimits()).children.compactMap(\.label)
        #expect(stored.sorted() == HubLimits.settings.map(\.name).sorted())
        #expect(stored.count == HubLimits.settings.count, "a member declared twice")
    }

    @Test func whatIsEncodedDecodesToTheSameLimits() throws {
        var limits = HubLimits()
        limits.activityTimeout = 60
        limits.serverPings = false
        limits.appShare = 0.5
        limits.maxConnectionsPerIP = 20
        limits.webhookBatchWindow = 0
        let data = try JSONEncoder().encode(limits)
        #expect(try JSONDecoder().decode(HubLimits.self, from: data) == limits)
        // Unset optional members are left out; every other member is written.
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(HubLimits())) as? [String: Any])
        #expect(object["maxConnectionsPerIP"] == nil && object["backendEventsPerSecond"] == nil)
        #expect(object.count == HubLimits.settings.count - 3)
    }

    @Test func aFileSetsOnlyWhatItNamesAndTheRestKeepsItsDefault() throws {
        let decoded = try JSONDecoder().decode(HubLimits.self, from: Data(#"{"closeTimeout": 2.5, "maxConnections": 7}"#.utf8))
        var expected = HubLimits()
        expected.closeTimeout = 2.5
        expected.maxConnections = 7
        #expect(decoded == expected)
    }

    @Test func rangesAreSaidAsTheTableSaysThem() {
        let byName = Dictionary(uniqueKeysWithValues: HubLimits.settings.map { ($0.name, $0) })
        #expect(byName["maxOutboundBytes"]?.tableRange == "64 KiB…1 GiB, ≥ 2 events")
        #expect(byName["activityTimeout"]?.tableRange == "1…3,600 s")
        #expect(byName["pongTimeout"]?.tableRange == "> 0…3,600 s")
        #expect(byName["shutdownSpread"]?.tableRange == "0…60 s")
        #expect(byName["appShare"]?.tableDefault(HubLimits()) == "0.25")
        #expect(byName["maxConnectionsPerIP"]?.tableDefault(HubLimits()) == "none")
        #expect(byName["serverPings"]?.tableDefault(HubLimits()) == "on")
        #expect(byName["maxEventDataBytes"]?.tableDefault(HubLimits()) == "10 KiB")
        #expect(byName["pongTimeout"]?.range == "more than 0 to 3600 seconds")
    }
}
