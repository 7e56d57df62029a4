import Clearance

/// The users an app ended the connections of (`terminate_connections`) within the grace period
/// (``HubConnectionLimits/terminationGracePeriod``): for that long, a sign-in as one of them, or a
/// subscription to a presence channel as one of them, is refused on this node. Pusher's
/// signatures never expire, so without it a socket that got a signed sign-in before the
/// terminate could sign in right after it.
///
/// Entries go once their period is over (at the next record), so it holds at most the users
/// terminated within one period.
final class TerminatedUsers: Sendable {
    private struct Key: Hashable {
        let appID: String
        let userID: String
    }

    private let until = Locked([Key: ContinuousClock.Instant]())

    /// `userID` of `appID` was terminated `now`: refused until `now + period`.
    func record(appID: String, userID: String, period: Duration, now: ContinuousClock.Instant = .now) {
        until.withLock { until in
            until = until.filter { $0.value > now }
            let end = now + period
            until[Key(appID: appID, userID: userID)] = max(end, until[Key(appID: appID, userID: userID)] ?? end)
        }
    }

    /// Whether `userID` of `appID` is within its grace period `now`.
    func contains(appID: String, userID: String, now: ContinuousClock.Instant = .now) -> Bool {
        until.withLock { ($0[Key(appID: appID, userID: userID)] ?? now) > now }
    }
}
