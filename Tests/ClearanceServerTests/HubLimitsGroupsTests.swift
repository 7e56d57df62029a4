import ClearanceServer
import Testing

/// `HubLimits` in its four groups: each setting of the declaration lives in the group type its
/// table names, and the flat names of earlier versions still reach the same members.
struct HubLimitsGroupsTests {
    /// Every setting, set through its environment variable, changes its own group's type and
    /// nothing else: the group the declaration gives it (the file's object, `--help`, the
    /// guide's table) is the group its stored property is in.
    @Test(arguments: HubLimits.settings.map(\.name))
    func eachSettingLivesInTheGroupItsDeclarationNames(_ name: String) throws {
        let setting = try #require(HubLimits.settings.first { $0.name == name })
        let defaults = HubLimits()
        let value = setting.range == "true or false" ? "false" : "7"
        let changed = try defaults.applyingEnvironment([setting.environmentVariable: value])
        let groupsChanged = [
            ("connections", changed.connections != defaults.connections),
            ("httpAPI", changed.httpAPI != defaults.httpAPI),
            ("channels", changed.channels != defaults.channels),
            ("webhooks", changed.webhooks != defaults.webhooks),
        ].filter(\.1).map(\.0)
        #expect(groupsChanged == [setting.group.rawValue], "\(name): \(groupsChanged)")
    }

    /// The flat names compile still (with a deprecation warning naming the group: this test is
    /// marked deprecated so that its own uses do not warn) and read and write the grouped members.
    @available(*, deprecated, message: "uses the flat names of earlier versions on purpose")
    @Test func theFlatNamesOfEarlierVersionsReachTheGroupedMembers() {
        var limits = HubLimits()
        limits.activityTimeout = 60
        limits.maxConnectionsPerIP = 12
        limits.httpIdleTimeout = 5
        limits.maxChannelNameLength = 100
        limits.webhookBatchWindow = 0.25
        #expect(limits.connections.activityTimeout == 60)
        #expect(limits.connections.maxConnectionsPerIP == 12)
        #expect(limits.httpAPI.httpIdleTimeout == 5)
        #expect(limits.channels.maxChannelNameLength == 100)
        #expect(limits.webhooks.webhookBatchWindow == 0.25)
        limits.connections.closeTimeout = 2
        #expect(limits.closeTimeout == 2)
        #expect(HubLimits { $0.maxCachedChannels = 3 }.channels.maxCachedChannels == 3)
    }
}
