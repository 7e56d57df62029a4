/// One line of input for `Tests/Interop/pusher_signatures.py`.
struct InteropCase: Encodable, Sendable {
    struct App: Encodable, Sendable, Hashable {
        var appID: String
        var key: String
        var secret: String
        var masterKeyBase64: String?
    }

    struct BatchEvent: Encodable, Sendable {
        var channel: String
        var name: String
        var data: String
    }

    struct RESTArguments: Encodable, Sendable {
        var channels: [String]?
        var event: String?
        var data: String?
        var socketID: String?
        var batch: [BatchEvent]?
        var prefixFilter: String?
        var attributes: [String]?
        var channel: String?
    }

    enum Kind: String, Encodable, Sendable {
        case channel, user, rest
    }

    var id: Int
    var type: Kind
    var app: App
    /// "canonical" (library re-serializes a parsed object) or "verbatim" (library signs the exact string).
    var mode: String?
    var socketID: String?
    var channel: String?
    var channelData: String?
    var userData: String?
    var call: String?
    var args: RESTArguments?
    var timestamp: Int64?
}
