@testable import ClearanceServer
import ClearanceTesting
import Testing

/// The pieces the hub protects itself with, as values: the descriptor budget, the throttled log
/// of refusals, the subscription budget.
@Suite("Hub admission")
struct HubAdmissionTests {
    @Test(arguments: [(100, 50), (256, 192), (1_024, 922), (20_000, 18_000), (1 << 20, (1 << 20) - 4_096)])
    func theSocketBudgetLeavesAReserve(_ limit: Int, _ budget: Int) {
        #expect(DescriptorLimit.budget(forLimit: limit) == budget)
    }

    @Test func theRaisedLimitIsTheHardOne() throws {
        let limits = try #require(DescriptorLimit.raised())
        #expect(limits.limit == limits.hardLimit || limits.limit == 10_240)
        #expect(limits.budget + limits.reserve == limits.limit)
    }

    @Test func aFloodOfRefusalsIsLoggedOncePerIntervalWithItsCount() {
        let logs = LogCapture()
        let log = ThrottledLog("hub.socket.refused", interval: .seconds(10), logger: logs.logger())
        let start = ContinuousClock.now
        for index in 0..<1_000 { log.record(["reason": "descriptor budget"], now: start + .milliseconds(index)) }
        #expect(logs.all.count == 1)
        #expect(logs.all[0].contains("count=1") && logs.all[0].contains("total=1"))
        log.record(now: start + .seconds(11))
        #expect(logs.all.count == 2)
        #expect(logs.all[1].contains("count=1000") && logs.all[1].contains("total=1001"), "\(logs.all[1])")
    }

    @Test func theSubscriptionBudgetIsTakenAndGivenBack() {
        let budget = HubBudget(limit: 2)
        #expect(budget.take() && budget.take())
        #expect(!budget.take())
        budget.add(-1)
        #expect(budget.take())
        budget.add(-2)
        #expect(budget.value == 0)
    }

    @Test func socketsCountAgainstEachLimitAndComeBack() {
        let sockets = SocketBudget(limits: .init(sockets: 3, httpSockets: 2, perAddress: 2))
        #expect(sockets.admit(address: "a") == nil)
        #expect(sockets.admit(address: "a") == nil)
        #expect(sockets.admit(address: "a") == .httpConnections)
        sockets.upgraded()
        #expect(sockets.admit(address: "a") == .address)
        #expect(sockets.admit(address: "b") == nil)
        #expect(sockets.admit(address: "c") == .descriptorBudget)
        sockets.released(address: "b", upgraded: false)
        #expect(sockets.admit(address: "c") == nil)
        #expect(sockets.openSockets == 3)
    }

    /// An upgrade is counted before the client can see it, and undone when it fails: the socket
    /// is then an HTTP socket again until it closes, and everything comes back.
    @Test func aFailedUpgradeCountsAsHTTPAgainUntilItCloses() {
        let sockets = SocketBudget(limits: .init(sockets: 10, httpSockets: 1, perAddress: nil))
        #expect(sockets.admit(address: "a") == nil)
        sockets.upgraded()
        #expect(sockets.admit(address: "b") == nil)
        sockets.released(address: "b", upgraded: false)
        sockets.upgradeFailed()
        #expect(sockets.admit(address: "c") == .httpConnections)
        sockets.released(address: "a", upgraded: false)
        #expect(sockets.openSockets == 0)
        #expect(sockets.admit(address: "c") == nil)
    }
}
