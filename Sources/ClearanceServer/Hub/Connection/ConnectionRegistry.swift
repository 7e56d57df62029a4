/// The hub's live connections: issues unique socket ids, enforces the hub's and each app's
/// connection limits, and the bound on connections of one address that have not authorized yet,
/// and reaches every connection (its ``ConnectionControl``) for the hub's ticker, when the hub
/// shuts down, and when the app terminates a user's connections.
actor ConnectionRegistry {
    enum Admission: Equatable {
        case admitted(socketID: String)
        case refused(HubCloseCode)
        /// Its address already holds ``HubConnectionLimits/maxUnauthorizedConnectionsPerIP`` connections
        /// that have not authorized (closed with 4100).
        case refusedUnauthorizedAtAddress
    }

    /// An app and the key its connections connected with, one instance shared by all of them
    /// (a connection's entry holds a reference, not two strings: 10,000 connections once cost
    /// 50 bytes each more when the key was added to the entry).
    private final class AppKey: Sendable {
        let appID: String
        /// The app key (a re-key closes only the connections of the old key).
        let key: String

        init(appID: String, key: String) {
            self.appID = appID
            self.key = key
        }
    }

    private struct Entry {
        let app: AppKey
        var control: ConnectionControl?
        /// The user the connection signed in as (`pusher:signin`).
        var userID: String?
    }

    private var sequence: UInt64 = 0
    private var live: [String: Entry] = [:]
    /// Each app's current ``AppKey``, shared by the entries of its new connections.
    private var appKeys: [String: AppKey] = [:]
    private var countByApp: [String: Int] = [:]
    /// The address each connection that has not authorized yet came from (an app with
    /// authorized connections), counted against ``HubConnectionLimits/maxUnauthorizedConnectionsPerIP``.
    private var unauthorized: [String: String] = [:]
    private var unauthorizedByAddress: [String: Int] = [:]
    private var shuttingDown = false

    /// The number of live connections.
    var count: Int { live.count }

    /// Every live connection's control, for the hub's ticker.
    var controls: [ConnectionControl] { live.values.compactMap(\.control) }

    /// Admits a connection of `appID` unless a limit is reached (4100 for the hub's, 4004 for
    /// the app's) or the hub is shutting down (4200). Every connection counts against its app's
    /// limit from the start, authorized or not: an app's anonymous sockets can never take
    /// another app's room. With `unauthorizedPerAddress` (an app with authorized connections),
    /// the connection also counts against its address's bound on connections that have not
    /// authorized, until ``authorized(socketID:)``.
    ///
    /// Socket ids are `<random>.<sequence>`: unique for the hub's lifetime (the sequence) and
    /// not guessable (the random part).
    func admit(appID: String, key: String = "", appLimit: Int?, hubLimit: Int?, address: String? = nil, unauthorizedPerAddress: Int? = nil) -> Admission {
        if shuttingDown { return .refused(.reconnectImmediately) }
        if let hubLimit, live.count >= hubLimit { return .refused(.overCapacity) }
        if let appLimit, countByApp[appID, default: 0] >= appLimit { return .refused(.overConnectionQuota) }
        let unauthorizedFrom = unauthorizedPerAddress.map { _ in address ?? "" }
        if let unauthorizedPerAddress, let unauthorizedFrom, unauthorizedByAddress[unauthorizedFrom, default: 0] >= unauthorizedPerAddress {
            return .refusedUnauthorizedAtAddress
        }
        sequence += 1
        let socketID = "\(UInt32.random(in: 1...UInt32.max)).\(sequence)"
        live[socketID] = Entry(app: appKey(appID: appID, key: key))
        countByApp[appID, default: 0] += 1
        if let unauthorizedFrom {
            unauthorized[socketID] = unauthorizedFrom
            unauthorizedByAddress[unauthorizedFrom, default: 0] += 1
        }
        return .admitted(socketID: socketID)
    }

    /// The connection authorized itself: it no longer counts against its address's bound on
    /// connections that have not.
    func authorized(socketID: String) {
        guard let address = unauthorized.removeValue(forKey: socketID) else { return }
        release(unauthorizedFrom: address)
    }

    /// Connections of `appID` now, authorized or not.
    func count(appID: String) -> Int {
        countByApp[appID, default: 0]
    }

    /// Connections that have not authorized yet from `address`.
    func unauthorizedCount(address: String) -> Int {
        unauthorizedByAddress[address, default: 0]
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

    /// The controls of `appID`'s connections (only those signed in as `userID`, and only those
    /// that connected with the app key `key`, when given).
    func controls(appID: String, userID: String? = nil, key: String? = nil) -> [ConnectionControl] {
        live.values.compactMap { entry in
            entry.app.appID == appID && (userID == nil || entry.userID == userID) && (key == nil || entry.app.key == key) ? entry.control : nil
        }
    }

    func remove(socketID: String) {
        guard let entry = live.removeValue(forKey: socketID) else { return }
        let appID = entry.app.appID
        countByApp[appID, default: 1] -= 1
        if countByApp[appID] == 0 {
            countByApp[appID] = nil
            appKeys[appID] = nil
        }
        if let address = unauthorized.removeValue(forKey: socketID) { release(unauthorizedFrom: address) }
    }

    /// The app's shared ``AppKey`` for `key` (a new one after a re-key).
    private func appKey(appID: String, key: String) -> AppKey {
        if let current = appKeys[appID], current.key == key { return current }
        let appKey = AppKey(appID: appID, key: key)
        appKeys[appID] = appKey
        return appKey
    }

    private func release(unauthorizedFrom address: String) {
        unauthorizedByAddress[address, default: 1] -= 1
        if unauthorizedByAddress[address] == 0 { unauthorizedByAddress[address] = nil }
    }

    /// Refuses new connections from now on (4200) and returns the way to every live one, for
    /// the hub to close them.
    func beginShutdown() -> [ConnectionControl] {
        shuttingDown = true
        return controls
    }
}
