import ClearanceSigning
import ClearanceWire

/// The `watchlist` of a sign-in's `user_data`: the user ids whose online and offline the
/// connection is told (through the hub's channel state, across the cluster).
enum Watchlist {
    /// Most user ids in one watchlist (Pusher's limit).
    static let maxUserIDs = 100

    /// Why a watchlist is refused (the sign-in fails with a `pusher:error` saying it).
    struct Refusal: Error, Sendable {
        let reason: String
    }

    /// The watched user ids of `userData` (none when it has no `watchlist`).
    /// - Throws: ``Refusal`` when `watchlist` is not an array of at most 100 user ids (strings of
    ///   1 to 128 characters).
    static func parse(userData: String) throws(Refusal) -> [String] {
        guard let object = try? JSONScanner.parse(userData).objectValue else { return [] }
        guard let value = object["watchlist"] else { return [] }
        guard case let .array(items) = value else {
            throw Refusal(reason: "The watchlist in user_data must be an array of user ids.")
        }
        guard items.count <= maxUserIDs else {
            throw Refusal(reason: "The watchlist in user_data has \(items.count) user ids: at most \(maxUserIDs) are allowed.")
        }
        var ids: [String] = []
        for item in items {
            guard let id = item.stringValue, !id.isEmpty, id.utf16.count <= PresenceChannelData.maxUserIDLength else {
                throw Refusal(reason: "The watchlist in user_data must hold user ids: strings of 1 to \(PresenceChannelData.maxUserIDLength) characters.")
            }
            ids.append(id)
        }
        return ids
    }
}
