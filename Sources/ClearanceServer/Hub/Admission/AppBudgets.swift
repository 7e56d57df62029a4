import Clearance

/// What each app holds of a budget the apps share (the hub's subscriptions): counted per app
/// against the app's part, beside the hub-wide ``HubBudget``, so that one app's connections can
/// never take what another app's need.
final class AppBudgets: Sendable {
    private let used = Locked([String: Int]())

    /// What `appID` holds now.
    func value(of appID: String) -> Int {
        used.withLock { $0[appID, default: 0] }
    }

    /// Counts one more for `appID` unless it already holds `limit`; false (nothing counted) when it does.
    func take(_ appID: String, limit: Int) -> Bool {
        used.withLock { used in
            guard used[appID, default: 0] < limit else { return false }
            used[appID, default: 0] += 1
            return true
        }
    }

    /// Gives back `amount` of `appID`'s.
    func release(_ appID: String, _ amount: Int) {
        guard amount != 0 else { return }
        used.withLock { used in
            let left = used[appID, default: 0] - amount
            used[appID] = left > 0 ? left : nil
        }
    }
}
