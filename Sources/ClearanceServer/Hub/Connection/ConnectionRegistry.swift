/// The hub's live connections: issues unique socket ids, enforces the hub's and each app's
/// connection limits, and reaches every connection (its ``ConnectionControl``) for the hub's
/// ticker, when the hub shuts down, and when the app terminates a user's connections.
actor ConnectionRegistry {
    enum Admission: Equatable {
        case admitted(socketID: String)
        case refused(HubCloseCode)
    }

    private struct Entry {
        let appID: String
        /// Whether it counts against its app's `maxConnections` (not until it authorizes, for an
        /// app with authorized connections).
        var countedForApp: Bool
        var control: ConnectionControl?
        /// The user the connection signed in as (`pusher:signin`).
        var userID: String?
    }

    private var sequence: UInt64 = 0
    private var live: [String: Entry] = [:]
    private var countByApp: [String: Int] = [:]
    private var shuttingDown = false

    /// The number of live connections.
    var count: Int { live.count }

    /// Every live connection's control, for the hub's ticker.
    var controls: [ConnectionControl] { live.values.compactMap(\.control) }

    /// Admits a connection of `appID` unless a limit is reached (4100 for the hub's,
    /// 4004 for the app's) or the hub is shutting down (4200). With `countedForApp` false (an
    /// app with authorized connections), the app's limit is checked only when it authorizes
    /// (``authorize(socketID:appLimit:)``).
    ///
    /// Socket ids are `<random>.<sequence>`: unique for the hub's lifetime (the sequence) and
    /// not guessable (the random part).
    func admit(appID: String, appLimit: Int?, hubLimit: Int?, countedForApp: Bool = true) -> Admission {
        if shuttingDown { return .refused(.reconnectImmediately) }
        if let hubLimit, live.count >= hubLimit { return .refused(.overCapacity) }
        if countedForApp, let appLimit, countByApp[appID, default: 0] >= appLimit { return .refused(.overConnectionQuota) }
        sequence += 1
        let socketID = "\(UInt32.random(in: 1...UInt32.max)).\(sequence)"
        live[socketID] = Entry(appID: appID, countedForApp: countedForApp)
        if countedForApp { countByApp[appID, default: 0] += 1 }
        return .admitted(socketID: socketID)
    }

    /// The connection authorized itself: from now on it counts against its app's limit. False
    /// when the app already holds `appLimit` (the connection must close with 4004).
    func authorize(socketID: String, appLimit: Int?) -> Bool {
        guard let entry = live[socketID], !entry.countedForApp else { return true }
        if let appLimit, countByApp[entry.appID, default: 0] >= appLimit { return false }
        live[socketID]?.countedForApp = true
        countByApp[entry.appID, default: 0] += 1
        return true
    }

    /// Gives an admitted connection its control. False when the hub began shutting down in the
    /// meantime (the connection must close itself with 4200).
    func attach(_ control: ConnectionControl, socketID: String) -> Bool {
        guard !shuttingDown else { return false }
        live[socketID]?.control = control
        return true
    }

    /// The connection signed in as `userID`.
    func signedIn(socketID: String, userID: String) {
        live[socketID]?.userID = userID
    }

    /// The controls of `appID`'s connections (only those signed in as `userID`, when given).
    func controls(appID: String, userID: String? = nil) -> [ConnectionControl] {
        live.values.compactMap { entry in entry.appID == appID && (userID == nil || entry.userID == userID) ? entry.control : nil }
    }

    func remove(socketID: String) {
        guard let entry = live.removeValue(forKey: socketID), entry.countedForApp else { return }
        countByApp[entry.appID, default: 1] -= 1
        if countByApp[entry.appID] == 0 { countByApp[entry.appID] = nil }
    }

    /// Refuses new connections from now on (4200) and returns the way to every live one, for
    /// the hub to close them.
    func beginShutdown() -> [ConnectionControl] {
        shuttingDown = true
        return controls
    }
}
