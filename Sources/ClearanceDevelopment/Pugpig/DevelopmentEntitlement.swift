/// What a development user may read from the development Pugpig endpoints, written in the
/// configuration file as `"all"`, an array of product ids, `"lapsed"` or `"suspended"`.
public enum DevelopmentEntitlement: Sendable, Hashable, Codable, CustomStringConvertible {
    /// An active subscription to every issue (no `<issues>` element).
    case all
    /// An active subscription to these issues only.
    case issues([String])
    /// A lapsed subscription (`inactive`): nothing.
    case lapsed
    /// A suspended account: nothing.
    case suspended

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let word = try? container.decode(String.self) {
            switch word {
            case "all": self = .all
            case "lapsed": self = .lapsed
            case "suspended": self = .suspended
            default:
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "entitlements is \"all\", \"lapsed\", \"suspended\" or an array of product ids")
            }
        } else {
            self = .issues(try container.decode([String].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .all: try container.encode("all")
        case .issues(let ids): try container.encode(ids)
        case .lapsed: try container.encode("lapsed")
        case .suspended: try container.encode("suspended")
        }
    }

    /// Whether `product` may be read.
    public func grants(_ product: String) -> Bool {
        switch self {
        case .all: true
        case .issues(let ids): ids.contains(product)
        case .lapsed, .suspended: false
        }
    }

    public var description: String {
        switch self {
        case .all: "all"
        case .issues(let ids): "[\(ids.joined(separator: ", "))]"
        case .lapsed: "lapsed"
        case .suspended: "suspended"
        }
    }
}
