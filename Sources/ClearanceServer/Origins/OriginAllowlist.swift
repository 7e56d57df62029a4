/// The web origins an app accepts requests from in a browser: a page on another origin is
/// refused (its WebSocket upgrade with 403, its calls to the auth endpoints without CORS
/// headers, so the browser blocks them). ``any`` accepts every origin.
///
/// A request without `Origin` does not come from a browser page (a server, a mobile app, a
/// command-line client): an allowlist does not apply to it, and callers let it through.
/// Origins are compared in their normal form (``WebOrigin``): scheme and host ignore case,
/// and the default port may be written or not.
public struct OriginAllowlist: Sendable, Hashable, CustomStringConvertible {
    /// The origins accepted, or nil for every one.
    public let origins: Set<WebOrigin>?

    /// Every origin is accepted.
    public static let any = OriginAllowlist(nil)

    /// Accepts `origins` only (an empty list accepts no browser page), or every origin when nil.
    public init(_ origins: [WebOrigin]?) {
        self.origins = origins.map(Set.init)
    }

    /// Whether the allowlist accepts every origin.
    public var acceptsEveryOrigin: Bool { origins == nil }

    /// Whether a request whose `Origin` header is `header` is accepted: with ``any`` always;
    /// otherwise when the header is an origin in the list (`null` or anything that is not an
    /// origin is refused).
    public func allows(_ header: String) -> Bool {
        guard let origins else { return true }
        return WebOrigin(header).map(origins.contains) ?? false
    }

    /// `any`, or the origins in their normal form, sorted.
    public var description: String {
        guard let origins else { return "any" }
        return "[" + origins.map(\.description).sorted().joined(separator: ", ") + "]"
    }
}
