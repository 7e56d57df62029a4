import Clearance

/// The hub's subscriptions (a connection on a channel), against ``HubChannelLimits/maxSubscriptions``
/// and each app's part of it (``HubConnectionLimits/appShare``, when the hub serves more than one
/// app): a connection takes one before it subscribes and gives it back when it leaves the channel
/// or closes. A refusal is counted, logged (throttled) and explained here, under the app when it
/// was the app's part that ran out.
final class SubscriptionBudget: Sendable {
    /// The subscriptions held on the whole hub. (A gauge reads this, not the budget: the budget
    /// holds the hub's counters, and a closure in them holding the budget would be a cycle.)
    let total: HubBudget
    private let apps = AppBudgets()
    private let limits: HubLimits
    private let appCount: @Sendable () -> Int
    private let counters: HubCounters
    private let metrics: HubMetrics
    private let hubFullLog: ThrottledLog
    private let appRefusalLog: ThrottledLog

    /// - Parameters:
    ///   - appCount: How many apps the hub serves now (a reload may change it).
    ///   - hubFullLog: Where a refusal at the hub's bound is logged.
    ///   - appRefusalLog: Where a refusal at an app's part is logged, under the app.
    init(
        limits: HubLimits, appCount: @escaping @Sendable () -> Int, counters: HubCounters, metrics: HubMetrics,
        hubFullLog: ThrottledLog, appRefusalLog: ThrottledLog
    ) {
        total = HubBudget(limit: limits.channels.maxSubscriptions)
        self.limits = limits
        self.appCount = appCount
        self.counters = counters
        self.metrics = metrics
        self.hubFullLog = hubFullLog
        self.appRefusalLog = appRefusalLog
    }

    /// The subscriptions held now, on the whole hub.
    var value: Int { total.value }

    /// Most subscriptions one app may hold: its part of the hub's.
    var limitPerApp: Int {
        limits.appPart(of: limits.channels.maxSubscriptions, apps: appCount())
    }

    /// Takes one for `appID`: nil when taken, otherwise the message for the client's
    /// `pusher:subscription_error` (503), counted and logged, nothing taken.
    func take(appID: String) -> String? {
        guard total.take() else {
            counters.increment(.subscriptionsRefusedAtHubLimit)
            hubFullLog.record(["limit": "\(limits.channels.maxSubscriptions)"])
            return "The hub holds its maximum of \(limits.channels.maxSubscriptions) subscriptions: try again later."
        }
        let limit = limitPerApp
        guard apps.take(appID, limit: limit) else {
            total.add(-1)
            counters.increment(.subscriptionsRefusedAtAppLimit)
            metrics.app(appID).subscriptionsRefused.increment()
            appRefusalLog.record(appID: appID, ["what": "subscriptions", "limit": "\(limit)"])
            return "This app holds its maximum of \(limit) subscriptions on this hub: try again later."
        }
        return nil
    }

    /// Gives back `count` subscriptions of `appID`.
    func release(appID: String, _ count: Int) {
        total.add(-count)
        apps.release(appID, count)
    }
}
