/// One webhook target of one app: the app's id and the target's place in its `webhooks` list.
public struct WebhookTargetID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The app's id.
    public let appID: String
    /// The target's index in the app's ``HubAppConfiguration/webhooks``.
    public let index: Int

    /// Creates an id.
    public init(appID: String, index: Int) {
        self.appID = appID
        self.index = index
    }

    /// `APP#INDEX`, the form stored by queues that persist.
    public var description: String { "\(appID)#\(index)" }

    /// Parses ``description``.
    public init?(_ text: String) {
        guard let mark = text.lastIndex(of: "#"), let index = Int(text[text.index(after: mark)...]) else { return nil }
        self.init(appID: String(text[..<mark]), index: index)
    }

    public static func < (lhs: WebhookTargetID, rhs: WebhookTargetID) -> Bool {
        (lhs.appID, lhs.index) < (rhs.appID, rhs.index)
    }
}
