import Clearance

/// The subscriptions the whole hub holds (``HubLimits/maxSubscriptions``): each connection
/// takes one before it subscribes and gives it back when it leaves the channel or closes, so
/// that the memory subscriptions cost is bounded however many connections there are.
final class SubscriptionBudget: Sendable {
    let limit: Int
    private let held = Locked(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Subscriptions held now.
    var count: Int { held.withLock { $0 } }

    /// Takes one subscription; false when the hub holds ``limit`` already.
    func take() -> Bool {
        held.withLock { held in
            guard held < limit else { return false }
            held += 1
            return true
        }
    }

    /// Gives `count` subscriptions back.
    func giveBack(_ count: Int = 1) {
        guard count > 0 else { return }
        held.withLock { $0 -= count }
    }
}
