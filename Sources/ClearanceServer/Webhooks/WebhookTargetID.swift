import Crypto

/// One webhook target of one app, named by what it is (its URL, the events it wants and its
/// channel filter), not by its place in the app's `webhooks` list: a reload that reorders the
/// list leaves each target's backlog with that target, and a target whose URL, events or filter
/// changed is another target (what was queued for the old one is dropped, counted, never sent to
/// a receiver that did not ask for it).
public struct WebhookTargetID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The app's id.
    public let appID: String
    /// The target's fingerprint: 16 hex digits of the SHA-256 of its URL, events and filter.
    public let fingerprint: String

    /// Creates an id from an app's id and a fingerprint.
    public init(appID: String, fingerprint: String) {
        self.appID = appID
        self.fingerprint = fingerprint
    }

    /// The id of `target` of app `appID`.
    public init(appID: String, target: WebhookTarget) {
        let identity = [
            target.url,
            target.events.map(\.rawValue).sorted().joined(separator: ","),
            target.filter.channelPrefix.map { "p:" + $0 } ?? "",
            target.filter.channelSuffix.map { "s:" + $0 } ?? "",
        ].joined(separator: "\n")
        let digest = SHA256.hash(data: Array(identity.utf8))
        self.init(appID: appID, fingerprint: digest.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined())
    }

    /// `APP#FINGERPRINT`, the form stored by queues that persist.
    public var description: String { "\(appID)#\(fingerprint)" }

    /// Parses ``description``.
    public init?(_ text: String) {
        guard let mark = text.lastIndex(of: "#") else { return nil }
        let fingerprint = String(text[text.index(after: mark)...])
        guard !fingerprint.isEmpty else { return nil }
        self.init(appID: String(text[..<mark]), fingerprint: fingerprint)
    }

    public static func < (lhs: WebhookTargetID, rhs: WebhookTargetID) -> Bool {
        (lhs.appID, lhs.fingerprint) < (rhs.appID, rhs.fingerprint)
    }
}
