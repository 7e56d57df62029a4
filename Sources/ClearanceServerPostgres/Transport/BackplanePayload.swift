import ClearanceServer
/// What travels between nodes, sealed (``BackplaneSeal``).
///
/// A notification's text is the sender's node id on the first line (in the clear: the
/// associated data binds it, and a node skips its own notifications unopened), then the sealed
/// body. A body is either the sender's messages, one per line, or `@ID`: the id of a row of the
/// payload table holding the sealed messages (PostgreSQL refuses NOTIFY payloads of 8,000 bytes
/// or more). The row is sealed with the same sequence number as its notification, which is
/// checked: a row answers only the notification that points at it.
enum BackplanePayload: Sendable, Equatable {
    /// Messages carried in the notification itself.
    case messages([Substring])
    /// Messages stored in the payload table under `id`.
    case stored(id: Int64)

    /// The most bytes a notification carries itself; longer bodies go through the table.
    static let notifyLimit = 7_900

    /// The longest body a notification of `node` carries itself, once sealed.
    static func bodyLimit(node: String) -> Int {
        BackplaneSeal.longestBody(fittingIn: notifyLimit - node.utf8.count - 1)
    }

    /// Packs `messages` into as few bodies as `limit` bytes allow, in order; a message too long
    /// for any notification gets a body of its own (to be stored).
    static func pack(_ messages: [ClusterMessage], limit: Int) -> [String] {
        var bodies: [String] = []
        var current = ""
        for message in messages {
            let line = message.line
            if !current.isEmpty, current.utf8.count + 1 + line.utf8.count > limit {
                bodies.append(current)
                current = ""
            }
            current += current.isEmpty ? line : "\n" + line
        }
        if !current.isEmpty { bodies.append(current) }
        return bodies
    }

    /// The body that points at the stored row `id`.
    static func pointer(id: Int64) -> String {
        "@" + String(id)
    }

    /// A notification of `node` carrying `sealed`.
    static func notification(node: String, sealed: String) -> String {
        node + "\n" + sealed
    }

    /// The node and the sealed body of a notification; `nil` when it has not that shape.
    static func split(notification text: String) -> (node: String, sealed: Substring)? {
        guard let newline = text.firstIndex(of: "\n") else { return nil }
        let node = String(text[..<newline])
        let sealed = text[text.index(after: newline)...]
        guard !node.isEmpty, !sealed.isEmpty, !sealed.contains("\n") else { return nil }
        return (node, sealed)
    }

    /// Reads an opened body.
    init?(body: String) {
        if body.first == "@" {
            guard let id = Int64(body.dropFirst()) else { return nil }
            self = .stored(id: id)
        } else {
            self = .messages(body.split(separator: "\n", omittingEmptySubsequences: true))
        }
    }
}
