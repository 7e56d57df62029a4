/// One member of ``HubLimits``, declared once (``HubLimits/settings``): its name, its group, one
/// line of doc, its range, how it is read from a configuration file and from its environment
/// variable, how it is written, and how the tables show its default and range. Decoding,
/// encoding, the environment, the unknown-member check, validation, the range in an error
/// message, `clearance serve --help` and the tables of Limits.md and of the operator's guide's
/// settings (both checked by a test) all come from it.
package struct HubLimitsSetting: Sendable {
    /// What a number counts, for the table of limits.
    enum Unit: Sendable {
        case count, bytes, seconds
    }

    /// The concern a setting belongs to, in the order the help and the operator's guide list them.
    package enum Group: String, Sendable, CaseIterable {
        case connections, httpAPI, channels, webhooks

        /// Its title in the help and the operator's guide.
        package var title: String {
            switch self {
            case .connections: "Connections"
            case .httpAPI: "HTTP API"
            case .channels: "Channels and events"
            case .webhooks: "Webhooks"
            }
        }
    }

    /// Its member name in `"limits": {…}`.
    package let name: String
    /// Its group (``about(_:_:)``).
    package private(set) var group: Group = .connections
    /// What it bounds, in one line (``about(_:_:)``).
    package private(set) var summary = ""
    /// The range as an error message says it: "1 to 3600", "more than 0 to 3600 seconds".
    package let range: String
    /// The default and the range as the table of limits shows them: "1 MiB", "64 KiB…1 GiB".
    package let tableDefault: @Sendable (HubLimits) -> String
    package let tableRange: String
    /// Whether the member of `limits` is within the range.
    let holds: @Sendable (HubLimits) -> Bool
    /// How the member is read: set when the file has it, the default kept otherwise.
    let member: ConfigurationMember<HubLimits>
    /// Sets the member from its environment variable's text; false for text of another type.
    let parse: @Sendable (inout HubLimits, String) -> Bool
    /// What its environment variable must hold, for an error message.
    let expected: String
    /// Writes the member (not an optional one that is unset).
    let encode: @Sendable (inout KeyedEncodingContainer<SettingKey>, HubLimits) throws -> Void

    /// A whole number within `range`.
    static func count(
        _ name: String, _ member: any WritableKeyPath<HubLimits, Int> & Sendable, _ range: ClosedRange<Int>, unit: Unit = .count,
        defaultNote: String = "", rangeNote: String = ""
    ) -> HubLimitsSetting {
        HubLimitsSetting(
            name: name, range: "\(range.lowerBound) to \(range.upperBound)",
            tableDefault: { format($0[keyPath: member], unit) + defaultNote },
            tableRange: format(range.lowerBound, unit, suffix: false) + "…" + format(range.upperBound, unit) + rangeNote,
            holds: { range.contains($0[keyPath: member]) },
            member: .optional(name, member),
            parse: { limits, text in
                guard let value = Int(text) else { return false }
                limits[keyPath: member] = value
                return true
            },
            expected: "a whole number",
            encode: { container, limits in try container.encode(limits[keyPath: member], forKey: SettingKey(name)) })
    }

    /// A whole number within `range`, or unset ("none": off).
    static func optionalCount(_ name: String, _ member: any WritableKeyPath<HubLimits, Int?> & Sendable, _ range: ClosedRange<Int>) -> HubLimitsSetting {
        HubLimitsSetting(
            name: name, range: "\(range.lowerBound) to \(range.upperBound)",
            tableDefault: { $0[keyPath: member].map { format($0, .count) } ?? "none" },
            tableRange: format(range.lowerBound, .count) + "…" + format(range.upperBound, .count),
            holds: { $0[keyPath: member].map(range.contains) ?? true },
            member: .optional(name, member),
            parse: { limits, text in
                if text == "none" {
                    limits[keyPath: member] = nil
                    return true
                }
                guard let value = Int(text) else { return false }
                limits[keyPath: member] = value
                return true
            },
            expected: "a whole number, or none",
            encode: { container, limits in try container.encodeIfPresent(limits[keyPath: member], forKey: SettingKey(name)) })
    }

    /// Seconds above zero (or from zero, with `zeroAllowed`) up to `limit`. NaN is outside.
    static func seconds(
        _ name: String, _ member: any WritableKeyPath<HubLimits, Double> & Sendable, atMost limit: Int, zeroAllowed: Bool = false
    ) -> HubLimitsSetting {
        fraction(name, member, atMost: Double(limit), zeroAllowed: zeroAllowed, unit: .seconds)
    }

    /// A number above zero (or from zero) up to `limit`: seconds, or a part of a whole.
    static func fraction(
        _ name: String, _ member: any WritableKeyPath<HubLimits, Double> & Sendable, atMost limit: Double, zeroAllowed: Bool = false,
        unit: Unit = .count
    ) -> HubLimitsSetting {
        let lower = zeroAllowed ? "0" : "more than 0"
        let described = unit == .seconds ? "\(lower) to \(Int(limit)) seconds" : "\(lower) to \(format(limit))"
        return HubLimitsSetting(
            name: name, range: described,
            tableDefault: { format($0[keyPath: member]) + (unit == .seconds ? " s" : "") },
            tableRange: (zeroAllowed ? "0" : "> 0") + "…" + format(limit) + (unit == .seconds ? " s" : ""),
            holds: { limits in
                let value = limits[keyPath: member]
                return (zeroAllowed ? value >= 0 : value > 0) && value <= limit
            },
            member: .optional(name, member),
            parse: { limits, text in
                guard let value = Double(text), value.isFinite else { return false }
                limits[keyPath: member] = value
                return true
            },
            expected: "a number",
            encode: { container, limits in try container.encode(limits[keyPath: member], forKey: SettingKey(name)) })
    }

    /// On or off.
    static func flag(_ name: String, _ member: any WritableKeyPath<HubLimits, Bool> & Sendable) -> HubLimitsSetting {
        HubLimitsSetting(
            name: name, range: "true or false",
            tableDefault: { $0[keyPath: member] ? "on" : "off" }, tableRange: "on, off",
            holds: { _ in true },
            member: .optional(name, member),
            parse: { limits, text in
                switch text.lowercased() {
                case "true", "on", "1": limits[keyPath: member] = true
                case "false", "off", "0": limits[keyPath: member] = false
                default: return false
                }
                return true
            },
            expected: "true or false",
            encode: { container, limits in try container.encode(limits[keyPath: member], forKey: SettingKey(name)) })
    }

    /// The setting in `group`, with `summary` (one line: what it bounds) for the help and the guide.
    func about(_ group: Group, _ summary: String) -> HubLimitsSetting {
        var setting = self
        setting.group = group
        setting.summary = summary
        return setting
    }

    /// Its environment variable: `CLEARANCE_LIMITS_` and its name in upper snake case
    /// (`activityTimeout`: `CLEARANCE_LIMITS_ACTIVITY_TIMEOUT`, `maxHTTPBodyBytes`:
    /// `CLEARANCE_LIMITS_MAX_HTTP_BODY_BYTES`).
    package var environmentVariable: String {
        let characters = Array(name)
        var words = ""
        for (index, character) in characters.enumerated() {
            if index > 0, character.isUppercase {
                let previous = characters[index - 1]
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) { words += "_" }
            }
            words.append(character)
        }
        return "CLEARANCE_LIMITS_" + words.uppercased()
    }

    /// `value` as the table shows it: digits grouped by thousands; bytes in KiB, MiB or GiB when
    /// a whole number of one; seconds with " s" (unless `suffix` is false: a range's lower bound).
    static func format(_ value: Int, _ unit: Unit, suffix: Bool = true) -> String {
        switch unit {
        case .count:
            return grouped(value)
        case .seconds:
            return grouped(value) + (suffix ? " s" : "")
        case .bytes:
            for (size, name) in [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] where value >= size && value % size == 0 {
                return "\(grouped(value / size)) \(name)"
            }
            return grouped(value)
        }
    }

    /// `value` as the table shows it: a whole number grouped by thousands, or its decimals.
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return grouped(Int(value)) }
        return "\(value)"
    }

    private static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }
}

/// A member name of a configuration object (`"limits": {…}`, an app, …), as a coding key.
package struct SettingKey: CodingKey, Sendable {
    package let stringValue: String
    package var intValue: Int? { nil }

    package init(_ name: String) {
        stringValue = name
    }

    package init?(stringValue: String) {
        self.stringValue = stringValue
    }

    package init?(intValue: Int) {
        nil
    }
}
