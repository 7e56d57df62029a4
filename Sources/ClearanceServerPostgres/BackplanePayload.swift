/// The text of one NOTIFY: the sender's node id on the first line, then either its messages,
/// one per line, or `@ID`: the id of a row of the payload table that holds the whole text
/// (PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more).
enum BackplanePayload: Sendable, Equatable {
    /// Messages carried in the notification itself.
    case messages(node: String, lines: [Substring])
    /// Messages stored in the payload table under `id`.
    case stored(node: String, id: Int64)

    /// The most bytes a notification carries itself; longer payloads go through the table.
    static let notifyLimit = 7_900

    /// Packs `messages` of `node` into as few payload texts as `limit` allows, in order; a
    /// message too long for any notification gets a text of its own (to be stored).
    static func pack(_ messages: [BackplaneMessage], node: String, limit: Int = notifyLimit) -> [String] {
        var texts: [String] = []
        var current = node
        var currentBytes = node.utf8.count
        var carries = false
        for message in messages {
            let line = message.line
            let bytes = line.utf8.count + 1
            if carries, currentBytes + bytes > limit {
                texts.append(current)
                current = node
                currentBytes = node.utf8.count
            }
            current += "\n" + line
            currentBytes += bytes
            carries = true
        }
        if carries { texts.append(current) }
        return texts
    }

    /// The notification that points at the stored text `id` of `node`.
    static func pointer(node: String, id: Int64) -> String {
        pointerPrefix(node: node) + String(id)
    }

    /// What precedes the id in a pointer (the database appends the id it assigns).
    static func pointerPrefix(node: String) -> String {
        "\(node)\n@"
    }

    /// Reads a notification's (or a stored) text; `nil` when it is not one of ours.
    init?(_ text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        guard let node = lines.first.map(String.init), !node.isEmpty else { return nil }
        if lines.count == 2, lines[1].first == "@" {
            guard let id = Int64(lines[1].dropFirst()) else { return nil }
            self = .stored(node: node, id: id)
        } else {
            self = .messages(node: node, lines: Array(lines.dropFirst()))
        }
    }
}
