/// Which products (issues, editions) a snapshot grants: every one, or a set of product ids.
///
/// Encoded as `"all"` or an array of ids (sorted), the form `clearance entitlements verify` prints.
public enum ProductAccess: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Every product (Pugpig: an active subscription with no `<issues>` element).
    case all
    /// Only these products (Pugpig: the ids of `<issues>`; empty for an empty `<issues/>`).
    case products(Set<String>)

    /// No product.
    public static let none = ProductAccess.products([])

    /// True when `product` is granted.
    public func contains(_ product: String) -> Bool {
        switch self {
        case .all: true
        case .products(let ids): ids.contains(product)
        }
    }

    /// The ids, sorted; nil for ``all``.
    public var sortedProducts: [String]? {
        switch self {
        case .all: nil
        case .products(let ids): ids.sorted()
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let word = try? container.decode(String.self) {
            guard word == "all" else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "access is \"all\" or an array of product ids")
            }
            self = .all
        } else {
            self = .products(Set(try container.decode([String].self)))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .all: try container.encode("all")
        case .products(let ids): try container.encode(ids.sorted())
        }
    }

    public var description: String {
        sortedProducts.map { "[\($0.joined(separator: ", "))]" } ?? "all"
    }
}
