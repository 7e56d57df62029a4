import ClearanceTestSupport
import Foundation

/// Generates random, reproducible interop cases: socket ids, channel names of every authorized
/// kind (random allowed characters, random lengths up to the 200-character limit), presence
/// `channel_data` with string or number `user_id` and unicode `user_info`, user sign-ins and
/// HTTP API requests.
struct InteropCaseGenerator {
    static let channelCharacters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-=@,.;")
    /// Text pieces for user_info and ids: ASCII, JSON specials, controls, accents, CJK, emoji
    /// (non-BMP, flags, ZWJ sequences), combining marks, U+2028, DEL.
    static let textPieces: [String] = [
        "a", "b", "Z", "0", "9", " ", "-", "_", ".", "\"", "\\", "/", "\n", "\t", "\r", "\u{8}", "\u{C}", "\u{1}", "\u{1F}",
        "\u{7F}", "é", "ß", "ñ", "Ω", "ж", "漢", "字", "中文", "日本語", "😀", "🇫🇷", "👩‍💻", "e\u{301}", "\u{2028}", "𝄞",
        "ﬁ", "\u{FEFF}", "<", ">", "&", "'", "{", "}", "[", "]", ":", ",", "%", "+", "=",
    ]
    static let pythonSafeDecimals = ["1.5", "-0.25", "3.125", "100.0", "0.0", "-7.75", "2.5e-05", "1e+20"]

    var rng: SeededGenerator
    let apps: [InteropCase.App]
    private var nextID = 0

    init(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var apps: [InteropCase.App] = []
        for index in 0..<12 {
            var masterKey = [UInt8](repeating: 0, count: 32)
            for byte in masterKey.indices { masterKey[byte] = UInt8.random(in: 0...255, using: &rng) }
            let secret = index % 3 == 0
                ? "sécret-\(index)-ключ-秘密-🔑" // non-ASCII secrets are used as UTF-8 by both sides
                : String((0..<20).map { _ in rng.element(of: Array("0123456789abcdef")) })
            apps.append(InteropCase.App(
                appID: String(Int.random(in: 1...9_999_999, using: &rng)),
                key: String((0..<20).map { _ in rng.element(of: Array("0123456789abcdef")) }),
                secret: secret,
                masterKeyBase64: Data(masterKey).base64EncodedString()
            ))
        }
        self.apps = apps
        self.rng = rng
    }

    // MARK: Cases

    mutating func channelCase(kind: String) -> InteropCase {
        let app = rng.element(of: apps)
        let prefix: String
        var channelData: String?
        var mode = rng.chance(0.5) ? "canonical" : "verbatim"
        switch kind {
        case "presence":
            prefix = "presence-"
            let style: TestJSON.Style = mode == "canonical" ? .python : rng.element(of: [.compact, .spaced])
            channelData = presenceChannelData().serialized(style)
        case "private-encrypted":
            prefix = "private-encrypted-"
            if rng.chance(0.1) { channelData = randomObject(depth: 0).serialized(mode == "canonical" ? .python : .compact) }
        default:
            prefix = "private-"
            if rng.chance(0.15) { channelData = randomObject(depth: 0).serialized(mode == "canonical" ? .python : .compact) }
        }
        if channelData == nil { mode = "canonical" }
        var value = make(.channel, app: app)
        value.mode = mode
        value.socketID = socketID()
        value.channel = channelName(prefix: prefix, maxLength: 200)
        value.channelData = channelData
        return value
    }

    mutating func userCase() -> InteropCase {
        let app = rng.element(of: apps)
        let canonical = rng.chance(0.5)
        // The Python library requires the id to be made of channel-name characters, at most 200.
        var members: [(String, TestJSON)] = [("id", .string(channelText(length: Int.random(in: 1...128, using: &rng))))]
        if rng.chance(0.8) { members.append(("user_info", randomObject(depth: 1))) }
        if rng.chance(0.3) {
            members.append(("watchlist", .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in .string(channelText(length: 8)) })))
        }
        members.shuffle(using: &rng)
        let style: TestJSON.Style = canonical ? .python : rng.element(of: [.compact, .spaced])
        let userData = TestJSON.object(members).serialized(style)
        var value = make(.user, app: app)
        value.mode = canonical ? "canonical" : "verbatim"
        value.socketID = socketID()
        value.userData = userData
        return value
    }

    mutating func restCase() -> InteropCase {
        let app = rng.element(of: apps)
        var arguments = InteropCase.RESTArguments()
        let call: String
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<40:
            call = "trigger"
            if rng.chance(0.2) {
                arguments.channels = [channelName(prefix: "private-encrypted-", maxLength: 200)]
            } else {
                arguments.channels = (0..<Int.random(in: 1...5, using: &rng)).map { _ in
                    channelName(prefix: rng.element(of: ["", "private-", "presence-"]), maxLength: 200)
                }
            }
            arguments.event = "ev-" + text(maxPieces: 12)
            arguments.data = rng.chance(0.5) ? text(maxPieces: 60) : randomObject(depth: 0).serialized(.compact)
            if rng.chance(0.4) { arguments.socketID = socketID() }
        case 40..<55:
            call = "trigger_batch"
            arguments.batch = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                InteropCase.BatchEvent(
                    channel: channelName(prefix: rng.element(of: ["", "private-", "presence-"]), maxLength: 200),
                    name: "batch-" + text(maxPieces: 8),
                    data: text(maxPieces: 30)
                )
            }
        case 55..<70:
            call = "channels_info"
            if rng.chance(0.7) { arguments.prefixFilter = rng.element(of: ["presence-", "private-", "a", "private-encrypted-"]) }
            arguments.attributes = Array(["user_count", "subscription_count"].shuffled(using: &rng).prefix(Int.random(in: 0...2, using: &rng)))
        case 70..<85:
            call = "channel_info"
            arguments.channel = channelName(prefix: rng.element(of: ["", "private-", "presence-"]), maxLength: 200)
            arguments.attributes = Array(["user_count", "subscription_count"].shuffled(using: &rng).prefix(Int.random(in: 0...2, using: &rng)))
        default:
            call = "users_info"
            arguments.channel = channelName(prefix: "presence-", maxLength: 200)
        }
        let timestamp = Int64.random(in: 1_300_000_000...2_000_000_000, using: &rng)
        var value = make(.rest, app: app)
        value.call = call
        value.args = arguments
        value.timestamp = timestamp
        return value
    }

    private mutating func make(_ type: InteropCase.Kind, app: InteropCase.App) -> InteropCase {
        nextID += 1
        return InteropCase(id: nextID, type: type, app: app)
    }

    // MARK: Pieces

    mutating func socketID() -> String {
        func digits(_ rng: inout SeededGenerator) -> String {
            String((0..<Int.random(in: 1...12, using: &rng)).map { _ in rng.element(of: Array("0123456789")) })
        }
        return digits(&rng) + "." + digits(&rng)
    }

    /// `prefix` plus random allowed characters; total length uniform in (prefix+1)...maxLength,
    /// with one in ten exactly at the limit.
    mutating func channelName(prefix: String, maxLength: Int) -> String {
        let total = rng.chance(0.1) ? maxLength : Int.random(in: (prefix.count + 1)...maxLength, using: &rng)
        return prefix + channelText(length: total - prefix.count)
    }

    mutating func channelText(length: Int) -> String {
        String((0..<length).map { _ in rng.element(of: Self.channelCharacters) })
    }

    mutating func text(maxPieces: Int) -> String {
        (0..<Int.random(in: 0...maxPieces, using: &rng)).map { _ in rng.element(of: Self.textPieces) }.joined()
    }

    mutating func presenceChannelData() -> TestJSON {
        let userID: TestJSON
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<4:
            userID = .integer(Int64.random(in: -1_000_000_000_000...9_007_199_254_740_991, using: &rng))
        case 4..<6:
            userID = .string(channelText(length: Int.random(in: 1...128, using: &rng)))
        default:
            var id = ""
            while id.isEmpty || id.utf16.count > 128 { id = text(maxPieces: 30) }
            userID = .string(id)
        }
        var members: [(String, TestJSON)] = [("user_id", userID)]
        if rng.chance(0.9) { members.append(("user_info", randomObject(depth: 1))) }
        if rng.chance(0.1) { members.append(("extra", .bool(rng.chance(0.5)))) }
        members.shuffle(using: &rng)
        return .object(members)
    }

    mutating func randomObject(depth: Int) -> TestJSON {
        let count = Int.random(in: 0...4, using: &rng)
        var members: [(String, TestJSON)] = []
        for index in 0..<count {
            members.append((text(maxPieces: 4) + "\(index)", randomValue(depth: depth + 1)))
        }
        return .object(members)
    }

    mutating func randomValue(depth: Int) -> TestJSON {
        switch Int.random(in: 0..<(depth < 3 ? 9 : 7), using: &rng) {
        case 0, 1: .string(text(maxPieces: 12))
        case 2: .integer(Int64.random(in: Int64.min...Int64.max, using: &rng))
        case 3: .decimal(rng.element(of: Self.pythonSafeDecimals))
        case 4: .bool(rng.chance(0.5))
        case 5: .null
        case 6: .string(text(maxPieces: 3))
        case 7: .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in randomValue(depth: depth + 1) })
        default: randomObject(depth: depth)
        }
    }
}
