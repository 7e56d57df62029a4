import ClearanceWire
/// The member list of a presence channel as a value: who is there, and who this client is.
public struct PresenceMembers: Sendable, Hashable {
    /// This client's own member, when its `channel_data` named one.
    public private(set) var me: PresenceMember?
    /// Everyone, keyed by user id.
    public private(set) var members: [String: PresenceMember]

    /// How many distinct members.
    public var count: Int { members.count }

    /// The members sorted by id.
    public var sorted: [PresenceMember] { members.values.sorted { $0.id < $1.id } }

    /// No one (before subscription, after a disconnect).
    public static let empty = PresenceMembers(me: nil, members: [:])

    /// Creates a list.
    public init(me: PresenceMember?, members: [String: PresenceMember]) {
        self.me = me
        self.members = members
    }

    /// Reads `pusher_internal:subscription_succeeded` data:
    /// `{"presence":{"ids":[…],"hash":{id: info},"count":N}}`; `myID` is this client's user id.
    init?(subscriptionData text: String?, myID: String?) {
        guard let text, let presence = JSONValue(parsing: text)?["presence"]?.objectValue else { return nil }
        let hash = presence["hash"]?.objectValue ?? [:]
        var ids = (presence["ids"]?.arrayValue ?? []).compactMap(\.scalarText)
        if ids.isEmpty { ids = Array(hash.keys) }
        var members: [String: PresenceMember] = [:]
        for id in ids {
            members[id] = PresenceMember(id: id, infoJSON: hash[id]?.jsonText)
        }
        self.members = members
        self.me = myID.flatMap { members[$0] ?? PresenceMember(id: $0) }
    }

    /// Adds (or replaces) a member. Returns false when it was there already with the same info.
    @discardableResult
    mutating func add(_ member: PresenceMember) -> Bool {
        members.updateValue(member, forKey: member.id) != member
    }

    /// Removes a member; returns it when it was there.
    @discardableResult
    mutating func remove(id: String) -> PresenceMember? {
        members.removeValue(forKey: id)
    }
}
