/// A path pattern such as `/webxp/projects/{projectToken}/appinbox/fetch`.
///
/// Segments are literals (matched exactly, case-sensitive), `{name}` (one non-empty segment) or
/// a final `{name...}` / `**` (the rest of the path, possibly empty). The query string of the
/// matched path is ignored.
public struct PathTemplate: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    /// The template as written.
    public let description: String
    let segments: [Segment]

    /// Parses a template.
    /// - Throws: ``AuthorizationError/misconfigured(reason:)`` for a template that does not start
    ///   with `/`, has an empty or duplicated parameter name, unbalanced braces, or a rest
    ///   segment that is not last.
    public init(_ template: String) throws(AuthorizationError) {
        guard template.hasPrefix("/") else {
            throw .misconfigured(reason: "path template '\(template)' must start with '/'")
        }
        var segments: [Segment] = []
        var names: Set<String> = []
        let parts = template.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (index, part) in parts.enumerated() {
            let isLast = index == parts.count - 1
            if part == "**" {
                guard isLast else { throw .misconfigured(reason: "'**' must be the last segment of '\(template)'") }
                segments.append(.rest("**"))
            } else if part.hasPrefix("{") && part.hasSuffix("}") && part.count >= 2 {
                var name = String(part.dropFirst().dropLast())
                let isRest = name.hasSuffix("...")
                if isRest { name = String(name.dropLast(3)) }
                guard !name.isEmpty, !name.contains("{"), !name.contains("}") else {
                    throw .misconfigured(reason: "path template '\(template)' has a malformed parameter '\(part)'")
                }
                guard names.insert(name).inserted else {
                    throw .misconfigured(reason: "path template '\(template)' names '\(name)' twice")
                }
                if isRest {
                    guard isLast else { throw .misconfigured(reason: "'{\(name)...}' must be the last segment of '\(template)'") }
                    segments.append(.rest(name))
                } else {
                    segments.append(.parameter(name))
                }
            } else if part.contains("{") || part.contains("}") {
                throw .misconfigured(reason: "path template '\(template)' has unbalanced braces in '\(part)'")
            } else {
                segments.append(.literal(String(part)))
            }
        }
        self.description = template
        self.segments = segments
    }

    /// The parameters captured when `path` matches, or nil.
    public func match(_ path: String) -> [String: String]? {
        let pathOnly = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard pathOnly.hasPrefix("/") else { return nil }
        let parts = pathOnly.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        var captured: [String: String] = [:]
        var index = 0
        for segment in segments {
            switch segment {
            case .literal(let literal):
                guard index < parts.count, parts[index] == literal else { return nil }
                index += 1
            case .parameter(let name):
                guard index < parts.count, !parts[index].isEmpty else { return nil }
                captured[name] = String(parts[index])
                index += 1
            case .rest(let name):
                captured[name] = parts[min(index, parts.count)...].joined(separator: "/")
                index = parts.count
            }
        }
        return index == parts.count ? captured : nil
    }

    /// True when `path` matches.
    public func matches(_ path: String) -> Bool { match(path) != nil }
}
