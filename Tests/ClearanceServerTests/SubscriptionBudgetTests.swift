@testable import ClearanceServer
import ClearanceTesting
import Testing

/// The hub's subscriptions against ``HubChannelLimits/maxSubscriptions`` and each app's part:
/// what is taken, what a refusal says, counts and logs, and that a refusal takes nothing.
@Suite struct SubscriptionBudgetTests {
    private struct Budget {
        let budget: SubscriptionBudget
        let counters = HubCounters()
        let metrics = HubMetrics()
        let hubLogs = LogCapture()
        let appLogs = LogCapture()

        init(maxSubscriptions: Int, appShare: Double, apps: Int) {
            let limits = HubLimits {
                $0.channels.maxSubscriptions = maxSubscriptions
                $0.connections.appShare = appShare
            }
            budget = SubscriptionBudget(
                limits: limits, appCount: { apps }, counters: counters, metrics: metrics,
                hubFullLog: ThrottledLog("hub.subscriptions.full", logger: hubLogs.logger()),
                appRefusalLog: ThrottledLog("hub.app.limit", logger: appLogs.logger()))
        }
    }

    @Test func theHubsBoundRefusesWithItsMessageCountsAndLogs() {
        let subject = Budget(maxSubscriptions: 2, appShare: 1, apps: 1)
        #expect(subject.budget.take(appID: "a") == nil)
        #expect(subject.budget.take(appID: "a") == nil)
        #expect(subject.budget.value == 2)
        let refusal = subject.budget.take(appID: "a")
        #expect(refusal == "The hub holds its maximum of 2 subscriptions: try again later.")
        #expect(subject.budget.value == 2, "a refusal takes nothing")
        #expect(subject.counters.value(.subscriptionsRefusedAtHubLimit) == 1)
        #expect(subject.counters.value(.subscriptionsRefusedAtAppLimit) == 0)
        #expect(subject.hubLogs.all.count == 1 && subject.hubLogs.all[0].contains("limit=2"), "\(subject.hubLogs.all)")
        #expect(subject.appLogs.all.isEmpty)
    }

    @Test func anAppsPartRefusesUnderTheAppAndLeavesTheOthersTheirs() {
        // Two apps, each at most half of 4.
        let subject = Budget(maxSubscriptions: 4, appShare: 0.5, apps: 2)
        #expect(subject.budget.limitPerApp == 2)
        #expect(subject.budget.take(appID: "a") == nil)
        #expect(subject.budget.take(appID: "a") == nil)
        let refusal = subject.budget.take(appID: "a")
        #expect(refusal == "This app holds its maximum of 2 subscriptions on this hub: try again later.")
        #expect(subject.budget.value == 2, "the hub-wide count is given back when the app's part refuses")
        #expect(subject.counters.value(.subscriptionsRefusedAtAppLimit) == 1)
        #expect(subject.counters.value(.subscriptionsRefusedAtHubLimit) == 0)
        #expect(subject.appLogs.all.count == 1 && subject.appLogs.all[0].contains("app_id=a"), "\(subject.appLogs.all)")
        #expect(subject.metrics.exposition().contains(#"clearance_app_refused_total{app_id="a",what="subscriptions"} 1"#),
                "\(subject.metrics.exposition())")
        #expect(subject.budget.take(appID: "b") == nil, "the other app still has its part")
        #expect(subject.budget.take(appID: "b") == nil)
        #expect(subject.budget.value == 4)
    }

    @Test func whatIsGivenBackCanBeTakenAgain() {
        let subject = Budget(maxSubscriptions: 4, appShare: 0.5, apps: 2)
        #expect(subject.budget.take(appID: "a") == nil)
        #expect(subject.budget.take(appID: "a") == nil)
        #expect(subject.budget.take(appID: "a") != nil)
        subject.budget.release(appID: "a", 2)
        #expect(subject.budget.value == 0)
        #expect(subject.budget.take(appID: "a") == nil)
        #expect(subject.budget.take(appID: "a") == nil)
        #expect(subject.budget.value == 2)
    }
}

/// A hub that is dropped frees what it made: nothing it owns holds it, or its counters, in a cycle
/// (a gauge that captured the subscription budget, which holds the counters, once kept them
/// alive; LeakSanitizer saw it in `clearance demo`).
@Suite struct HubLifetimeTests {
    @Test func aDroppedHubFreesItsCountersAndBudgets() throws {
        weak var counters: HubCounters?
        weak var budget: SubscriptionBudget?
        weak var dependencies: PusherConnection.Dependencies?
        do {
            let hub = try Hub(
                configuration: HubConfiguration(apps: [HubAppConfiguration(id: "a", key: "a-key", secret: "a-secret-of-32-bytes-or-more!!!!")]),
                logger: LogCapture().logger())
            counters = hub.counters
            budget = hub.subscriptions
            dependencies = hub.connectionDependencies
            #expect(counters != nil && budget != nil && dependencies != nil, "the positive control: alive while the hub is")
            #expect(hub.counters.gauge(.subscriptions) == 0)
        }
        #expect(counters == nil, "the hub's counters outlived it")
        #expect(budget == nil, "the subscription budget outlived the hub")
        #expect(dependencies == nil, "the connections' dependencies outlived the hub")
    }
}
