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
        // HubLimits stores its four groups; the settings are the groups' stored members.
        let groups = Mirror(reflecting: HubLimits()).children
        #expect(groups.compactMap(\.label) == HubLimitsSetting.Group.allCases.map(\.rawValue))
        let stored = groups.flatMap { Mirror(reflecting: $0.value).children.compactMap(\.label) }
        #expect(stored.sorted() == HubLimits.settings.map(\.name).sorted())
        #expect(stored.count == HubLimits.settings.count, "a member declared twice")
    }

    @Test func whatIsEncodedDecodesToTheSameLimits() throws {
        var limits = HubLimits()
        limits.connections.activityTimeout = 60
        limits.connections.serverPings = false
        limits.connections.appShare = 0.5
        limits.connections.maxConnectionsPerIP = 20
        limits.webhooks.webhookBatchWindow = 0
        let data = try JSONEncoder().encode(limits)
        #expect(try JSONDecoder().decode(HubLimits.self, from: data) == limits)
        // Written by group; unset optional members are left out, every other member is written.
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(HubLimits())) as? [String: [String: Any]])
        #expect(Set(object.keys) == ["connections", "httpAPI", "channels", "webhooks"])
        #expect(object["connections"]?["maxConnectionsPerIP"] == nil && object["httpAPI"]?["backendEventsPerSecond"] == nil)
        #expect(object["connections"]?["activityTimeout"] as? Int == 120)
        #expect(object.values.map(\.count).reduce(0, +) == HubLimits.settings.count - 3)
    }

    /// The grouped file and the flat one (deprecated) load the same limits; a member in both
    /// places takes the group's; a misspelt member of a group is refused with its path.
    @Test func groupedAndFlatNamesLoadTheSameLimits() throws {
        let grouped = #"{"connections": {"activityTimeout": 60, "maxConnectionsPerIP": 9}, "webhooks": {"webhookBatchWindow": 0}}"#
        let flat = #"{"activityTimeout": 60, "maxConnectionsPerIP": 9, "webhookBatchWindow": 0}"#
        var expected = HubLimits()
        expected.connections.activityTimeout = 60
        expected.connections.maxConnectionsPerIP = 9
        expected.webhooks.webhookBatchWindow = 0
        #expect(try JSONDecoder().decode(HubLimits.self, from: Data(grouped.utf8)) == expected)
        #expect(try JSONDecoder().decode(HubLimits.self, from: Data(flat.utf8)) == expected)
        let both = #"{"activityTimeout": 30, "connections": {"activityTimeout": 60}}"#
        #expect(try JSONDecoder().decode(HubLimits.self, from: Data(both.utf8)).connections.activityTimeout == 60)
        #expect(throws: HubConfigurationError.unknownMember(path: "connections.webhookBatchWindow", suggestion: nil,
                                                             known: HubLimits.settings.filter { $0.group == .connections }.map(\.name))) {
            try JSONDecoder().decode(HubLimits.self, from: Data(#"{"connections": {"webhookBatchWindow": 1}}"#.utf8))
        }
        #expect(HubLimits.flatNames(inConfiguration: Data(#"{"apps": [], "limits": \#(flat)}"#.utf8)).map(\.grouped).sorted()
            == ["limits.connections.activityTimeout", "limits.connections.maxConnectionsPerIP", "limits.webhooks.webhookBatchWindow"])
        #expect(HubLimits.flatNames(inConfiguration: Data(#"{"apps": [], "limits": \#(grouped)}"#.utf8)).isEmpty)
    }

    @Test func aFileSetsOnlyWhatItNamesAndTheRestKeepsItsDefault() throws {
        let decoded = try JSONDecoder().decode(HubLimits.self, from: Data(#"{"closeTimeout": 2.5, "maxConnections": 7}"#.utf8))
        var expected = HubLimits()
        expected.connections.closeTimeout = 2.5
        expected.connections.maxConnections = 7
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

    /// The operator's guide's table of settings, between its two markers, is ``HubLimits/settingsTable``.
    @Test func theOperatorsGuidesTableOfSettingsIsTheDeclaration() throws {
        let guide = "Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md"
        let readme = try String(contentsOf: try PackageRoot.url().appending(path: guide), encoding: .utf8)
        let begin = "<!-- settings table: made from HubLimits.settings, checked by HubLimitsDeclarationTests -->\n"
        let end = "\n<!-- end of the settings table -->"
        let start = try #require(readme.range(of: begin), "\(guide) has no settings table")
        let stop = try #require(readme.range(of: end, range: start.upperBound..<readme.endIndex), "the settings table has no end marker")
        let table = String(readme[start.upperBound..<stop.lowerBound]).trimmingCharacters(in: .newlines)
        if table != HubLimits.settingsTable, ProcessInfo.processInfo.environment["CLEARANCE_PRINT_SETTINGS_TABLE"] != nil {
            print(HubLimits.settingsTable)
        }
        #expect(table == HubLimits.settingsTable, "\(guide)'s settings table differs from HubLimits.settings (run this test with CLEARANCE_PRINT_SETTINGS_TABLE=1 to print it)")
    }

    @Test func everySettingHasAGroupALineOfDocAndItsOwnEnvironmentVariable() {
        for setting in HubLimits.settings {
            #expect(!setting.summary.isEmpty && !setting.summary.contains("\n"), "\(setting.name) has no one-line summary")
        }
        let variables = HubLimits.settings.map(\.environmentVariable)
        #expect(Set(variables).count == variables.count, "two settings share a variable")
        let byName = Dictionary(uniqueKeysWithValues: HubLimits.settings.map { ($0.name, $0) })
        #expect(byName["activityTimeout"]?.environmentVariable == "CLEARANCE_LIMITS_ACTIVITY_TIMEOUT")
        #expect(byName["maxHTTPBodyBytes"]?.environmentVariable == "CLEARANCE_LIMITS_MAX_HTTP_BODY_BYTES")
        #expect(byName["maxConnectionsPerIP"]?.environmentVariable == "CLEARANCE_LIMITS_MAX_CONNECTIONS_PER_IP")
        #expect(byName["cacheTTL"]?.environmentVariable == "CLEARANCE_LIMITS_CACHE_TTL")
        #expect(byName["maxHTTPConnections"]?.group == .httpAPI)
        #expect(byName["webhookBatchWindow"]?.group == .webhooks)
    }

    @Test func theEnvironmentSetsEachKindOfSettingAndWinsOverTheFile() throws {
        let file = try JSONDecoder().decode(HubLimits.self, from: Data(#"{"activityTimeout": 60, "maxConnectionsPerIP": 5}"#.utf8))
        let limits = try file.applyingEnvironment([
            "CLEARANCE_LIMITS_ACTIVITY_TIMEOUT": "42",
            "CLEARANCE_LIMITS_PONG_TIMEOUT": "2.5",
            "CLEARANCE_LIMITS_SERVER_PINGS": "off",
            "CLEARANCE_LIMITS_MAX_CONNECTIONS_PER_IP": "none",
            "CLEARANCE_LIMITS_BACKEND_EVENTS_PER_SECOND": " 300 ",
            "CLEARANCE_LIMITS_MAX_CONNECTIONS": "",  // empty: unset, the file's (here the default) stays
            "CLEARANCE_ACTIVITY_TIMEOUT": "7",  // not a limit's variable
        ])
        var expected = HubLimits()
        expected.connections.activityTimeout = 42
        expected.connections.pongTimeout = 2.5
        expected.connections.serverPings = false
        expected.connections.maxConnectionsPerIP = nil
        expected.httpAPI.backendEventsPerSecond = 300
        #expect(limits == expected)
        #expect(try HubLimits().applyingEnvironment([:]) == HubLimits())
    }

    @Test(arguments: [
        ("CLEARANCE_LIMITS_ACTIVITY_TIMEOUT", "ten", "a whole number"),
        ("CLEARANCE_LIMITS_ACTIVITY_TIMEOUT", "1.5", "a whole number"),
        ("CLEARANCE_LIMITS_PONG_TIMEOUT", "nan", "a number"),
        ("CLEARANCE_LIMITS_SERVER_PINGS", "yes please", "true or false"),
        ("CLEARANCE_LIMITS_MAX_CONNECTIONS_PER_IP", "unlimited", "a whole number, or none"),
    ])
    func anEnvironmentValueOfAnotherTypeIsRefusedByName(variable: String, value: String, expected: String) {
        #expect(throws: HubConfigurationError.invalidEnvironmentValue(variable: variable, expected: expected)) {
            try HubLimits().applyingEnvironment([variable: value])
        }
        let message = HubConfigurationError.invalidEnvironmentValue(variable: variable, expected: expected).message
        #expect(message.contains(variable) && message.contains(expected) && !message.contains(value))
    }
}
