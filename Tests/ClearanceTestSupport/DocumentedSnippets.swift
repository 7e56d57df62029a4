import Foundation

/// Keeps documentation and the tests that compile its code from drifting apart: the `swift`
/// code blocks of a Markdown document (a README section, a DocC article) must be, in order and
/// line for line, the regions of a test's source marked `// snippet: begin` … `// snippet: end`.
package enum DocumentedSnippets {
    /// The marker lines, alone on their line (any indentation).
    package static let begin = "// snippet: begin"
    package static let end = "// snippet: end"

    /// The contents of every ```` ```swift ```` block of `markdown`, in order.
    package static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil {
                if line == "```swift" { current = [] }
            } else if line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current!.append(line)
            }
        }
        return blocks
    }

    /// Every region of `source` between a ``begin`` and an ``end`` line, with the begin line's
    /// indentation taken off each of its lines.
    package static func markedRegions(in source: String) -> [String] {
        var regions: [String] = []
        var current: (indent: Int, lines: [String])?
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == begin {
                current = (line.prefix { $0 == " " }.count, [])
            } else if trimmed == end, let region = current {
                regions.append(region.lines.joined(separator: "\n"))
                current = nil
            } else if let region = current {
                let indent = line.prefix { $0 == " " }.count
                current!.lines.append(String(line.dropFirst(min(indent, region.indent))))
            }
        }
        return regions
    }

    /// The package file at `relativePath` (from the package root), as text.
    package static func packageFile(_ relativePath: String) throws -> String {
        try String(contentsOf: PackageRoot.url().appendingPathComponent(relativePath), encoding: .utf8)
    }
}
