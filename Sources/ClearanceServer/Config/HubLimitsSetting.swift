/// One member of ``HubLimits``, declared once (``HubLimits/settings``): its name, its range, how
/// it is read from and written to a configuration file, and how the table of limits shows its
/// default and range. Decoding, encoding, the unknown-member check, validation, the range in an
/// error message and the documentation's table of limits (checked by a test) all come from it.
package struct HubLimitsSetting: Sendable {
    /// What a number counts, for the table of limits.
    enum Unit: Sendable {
        case count, bytes, seconds
    }

    /// Its member name in `"limits": {…}`.
    package let name: String
    /// The range as an error message says it: "1 to 3600", "more than 0 to 3600 seconds".
    package let range: String
    /// The default and the range as the table of limits shows them: "1 MiB", "64 KiB…1 GiB".
    package let tableDefault: @Sendable (HubLimits) -> String
    package let tableRange: String
    /// Whether the member of `limits` is within the range.
    let holds: @Sendable (HubLimits) -> Bool
    /// How the member is read: set when the file has it, the default kept otherwise.
    let member: ConfigurationMember<HubLimits>
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
            encode: { container, limits in try container.encode(limits[keyPath: member], forKey: SettingKey(name)) })
    }

    /// On or off.
    static func flag(_ name: String, _ member: any WritableKeyPath<HubLimits, Bool> & Sendable) -> HubLimitsSetting {
        HubLimitsSetting(
            name: name, range: "true or false",
            tableDefault: { $0[keyPath: member] ? "on" : "off" }, tableRange: "on, off",
            holds: { _ in true },
            member: .optional(name, member),
            encode: { container, limits in try container.encode(limits[keyPath: member], forKey: SettingKey(name)) })
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
