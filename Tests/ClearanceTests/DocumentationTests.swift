import ClearanceTestSupport
import Foundation
import Testing

/// The documentation as a whole: every Swift block of every Markdown file (the README, the DocC
/// articles, `docs/`, …) and of every `///` doc comment is compiled by a test that holds the same
/// text, every code block says its language, every relative link resolves, and every heading of
/// the README of before issue 34 has a place.
///
/// A Swift block is compiled when it is, line for line, a region of a test source marked
/// `// snippet: begin` … `// snippet: end` (``DocumentedSnippets``). Its leading `import` lines,
/// if any, must be imports of that test file. A block that is not Swift is fenced with its own
/// language (`text`, `sh`, `json`, …); a fence without one fails. The Swift block of an app's
/// `Package.swift` (a manifest, not code a test target can hold) is type-checked as part of a
/// manifest against the toolchain's `PackageDescription`, and must name only products that this
/// package's `Package.swift` declares.
@Suite("Documentation")
struct DocumentationTests {
    /// A fenced code block and where it is.
    struct Block: CustomStringConvertible {
        let file: String
        let line: Int
        let language: String
        let text: String
        var description: String { "\(file):\(line)" }
    }

    /// A marked region of a test source, with the file's imports.
    struct Region {
        let file: String
        let text: String
        let imports: Set<String>
    }

    static let root = try! PackageRoot.url()

    /// Every file of the package under `directories` whose name ends with `suffix`, relative to the root.
    static func files(under directories: [String], suffix: String) -> [String] {
        var found: [String] = []
        for directory in directories {
            let base = root.appendingPathComponent(directory)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            let basePath = base.standardizedFileURL.path
            for case let url as URL in walker {
                let inside = url.standardizedFileURL.path
                guard inside.hasPrefix(basePath + "/") else { continue }
                let path = directory + "/" + String(inside.dropFirst(basePath.count + 1))
                if url.lastPathComponent.hasPrefix(".") { walker.skipDescendants(); continue }
                if path.hasSuffix(suffix) { found.append(path) }
            }
        }
        return found.sorted()
    }

    /// The Markdown documents: the top-level ones, `docs/`, the benchmarks' and the fuzzers', every DocC catalog.
    static func markdownFiles() -> [String] {
        let topLevel = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter { $0.hasSuffix(".md") }
        return topLevel.sorted() + files(under: ["docs", "Benchmarks", "Fuzz", "Sources", "Tests/Interop"], suffix: ".md")
    }

    /// The Swift sources whose doc comments are documentation.
    static func swiftSources() -> [String] {
        files(under: ["Sources", "Benchmarks", "Fuzz"], suffix: ".swift")
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The fenced blocks of `lines` (Markdown, or doc-comment text without its `///`).
    static func blocks(in lines: [(number: Int, text: String)], file: String) -> [Block] {
        var blocks: [Block] = []
        var open: (line: Int, language: String, body: [String])?
        for (number, text) in lines {
            if var current = open {
                if text == "```" {
                    blocks.append(Block(file: file, line: current.line, language: current.language, text: current.body.joined(separator: "\n")))
                    open = nil
                } else {
                    current.body.append(text)
                    open = current
                }
            } else if text.hasPrefix("```") {
                open = (number, String(text.dropFirst(3)).trimmingCharacters(in: .whitespaces), [])
            }
        }
        return blocks
    }

    static func markdownBlocks(_ path: String) throws -> [Block] {
        let lines: [(number: Int, text: String)] = try read(path).split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated().map { (number: $0.offset + 1, text: String($0.element)) }
        return blocks(in: lines, file: path)
    }

    /// The blocks of a source's `///` comments, each comment's text taken without `/// `.
    static func docCommentBlocks(_ path: String) throws -> [Block] {
        var result: [Block] = []
        var comment: [(number: Int, text: String)] = []
        func flush() {
            result += blocks(in: comment, file: path)
            comment = []
        }
        for (index, line) in try read(path).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("///") {
                var text = trimmed.dropFirst(3)
                if text.hasPrefix(" ") { text = text.dropFirst() }
                comment.append((number: index + 1, text: String(text)))
            } else {
                flush()
            }
        }
        flush()
        return result
    }

    /// Every fenced block of the Markdown files and of the sources' doc comments, read once for
    /// the five tests that look at them (each read every file again: a second of CPU apiece).
    static func allBlocks() throws -> [Block] {
        try blocksOfEveryFile.get()
    }

    private static let blocksOfEveryFile = Result<[Block], any Error> {
        try markdownFiles().flatMap(markdownBlocks) + swiftSources().flatMap(docCommentBlocks)
    }

    static func regions() throws -> [Region] {
        try files(under: ["Tests"], suffix: ".swift").flatMap { path -> [Region] in
            let source = try read(path)
            let imports = Set(source.split(separator: "\n").filter { $0.hasPrefix("import ") }.map(String.init))
            return DocumentedSnippets.markedRegions(in: source).map { Region(file: path, text: $0, imports: imports) }
        }
    }

    /// A block without its leading `import` lines (and the blank line after them), and those lines.
    static func splitImports(_ text: String) -> (imports: [String], body: String) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var imports: [String] = []
        while let first = lines.first, first.hasPrefix("import ") {
            imports.append(first)
            lines.removeFirst()
        }
        if !imports.isEmpty, lines.first == "" { lines.removeFirst() }
        return (imports, lines.joined(separator: "\n"))
    }

    static let manifestMarker = "// In your Package.swift"

    @Test func everyCodeBlockSaysItsLanguage() throws {
        let blocks = try Self.allBlocks()
        #expect(blocks.count > 50)
        for block in blocks where block.language.isEmpty {
            Issue.record("\(block): a code block without a language: write ```swift (compiled) or ```text, ```sh, ```json …")
        }
    }

    @Test func everySwiftBlockIsCompiledByATest() throws {
        let regions = try Self.regions()
        let swift = try Self.allBlocks().filter { $0.language == "swift" && !$0.text.hasPrefix(Self.manifestMarker) }
        #expect(swift.count > 40)
        for block in swift {
            let (imports, body) = Self.splitImports(block.text)
            let matches = regions.filter { $0.text == body }
            if matches.isEmpty {
                Issue.record("\(block): this Swift block is no test's marked region (// snippet: begin … // snippet: end):\n\(body)")
            } else if !imports.isEmpty, !matches.contains(where: { Set(imports).isSubset(of: $0.imports) }) {
                Issue.record("\(block): its imports \(imports) are not those of \(matches.map(\.file)), which compile it")
            }
        }
    }

    @Test func everyMarkedRegionIsDocumented() throws {
        let documented = Set(try Self.allBlocks().filter { $0.language == "swift" }.map { Self.splitImports($0.text).body })
        let regions = try Self.regions()
        #expect(regions.count > 40)
        for region in regions where !documented.contains(region.text) {
            Issue.record("\(region.file): a marked region that no document shows (it drifted, or its document lost it):\n\(region.text)")
        }
    }

    /// The manifest fragment compiles: each one, as it stands in its document, is the argument list
    /// of a `Package(…)` in a manifest type-checked against the toolchain's `PackageDescription`
    /// (`swiftc -typecheck`, the manifest API of the tools version the README names).
    @Test func theManifestFragmentCompilesAsPartOfAPackageManifest() async throws {
        let fragments = try Self.allBlocks().filter { $0.language == "swift" && $0.text.hasPrefix(Self.manifestMarker) }
        #expect(!fragments.isEmpty)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (index, fragment) in fragments.enumerated() {
            let file = directory.file("Package\(index).swift")
            try Data("// swift-tools-version:6.1\nimport PackageDescription\n\nlet package = Package(\n    name: \"ReadmeFragment\",\n\(fragment.text)\n)\n".utf8).write(to: file)
            // The manifest API sits beside the compiler: <toolchain>/usr/lib/swift/pm/ManifestAPI.
            // (swiftc is a link to swift-driver, which reads the name it was called by.)
            let script = #"bin="$(dirname "$(readlink -f "$(command -v swiftc)")")" && exec swiftc -typecheck -I "$bin/../lib/swift/pm/ManifestAPI" -package-description-version 6.1 "$0""#
            let output = try await ChildProcess.run(URL(fileURLWithPath: "/bin/sh"), ["-c", script, file.path])
            #expect(output.status == 0, "\(fragment): \(output.stderr.suffix(2_000))")
        }
    }

    /// The manifest fragment names products that exist, from a package named as the URL ends.
    @Test func theManifestFragmentNamesRealProducts() throws {
        let fragments = try Self.allBlocks().filter { $0.language == "swift" && $0.text.hasPrefix(Self.manifestMarker) }
        #expect(!fragments.isEmpty)
        let manifest = try Self.read("Package.swift")
        for fragment in fragments {
            let products = Self.captures(of: #"\.product\(name: "([A-Za-z]+)", package: "clearance"\)"#, in: fragment.text)
            #expect(!products.isEmpty, "\(fragment) names no product")
            for product in products {
                #expect(manifest.contains(#".library(name: "\#(product)""#), "\(fragment): \(product) is no library product of Package.swift")
            }
            #expect(fragment.text.contains("/clearance.git\""), "\(fragment): the package's identity must be clearance")
        }
        let readme = try Self.read("README.md")
        for platform in Self.captures(of: #"\.(macOS|iOS|tvOS|watchOS|visionOS)\(\.v(\d+)\)"#, in: manifest, group: 0) {
            let parts = platform.dropFirst().split(separator: "(")
            let name = String(parts[0]), version = String(parts[1].dropFirst(2).dropLast())
            #expect(readme.contains("\(name) \(version)"), "README.md does not name the platform \(name) \(version) of Package.swift")
        }
    }

    static func captures(of pattern: String, in text: String, group: Int = 1) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: group), in: text).map { String(text[$0]) }
        }
    }

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            if character.isLetter || character.isNumber || character == "-" || character == "_" { return character }
            return nil
        })
    }

    static func anchors(in markdown: String) -> Set<String> {
        var anchors: Set<String> = []
        var fenced = false
        for line in markdown.split(separator: "\n") {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            if !fenced, line.hasPrefix("#") {
                anchors.insert(anchor(line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)))
            }
        }
        return anchors
    }

    /// Every relative link of every Markdown file names a file that exists (and a heading of it).
    @Test func relativeLinksResolve() throws {
        var checked = 0
        for path in Self.markdownFiles() {
            let text = try Self.read(path)
            var prose: [String] = []
            var fenced = false
            for line in text.split(separator: "\n") {
                if line.hasPrefix("```") { fenced.toggle(); continue }
                if !fenced { prose.append(String(line)) }
            }
            let directory = Self.root.appendingPathComponent(path).deletingLastPathComponent()
            for target in Self.captures(of: #"\]\(([^)\s]+)\)"#, in: prose.joined(separator: "\n")) {
                if target.contains("://") || target.hasPrefix("mailto:") || target.hasPrefix("doc:") { continue }
                checked += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let url = parts[0].isEmpty ? Self.root.appendingPathComponent(path) : directory.appendingPathComponent(parts[0]).standardizedFileURL
                guard FileManager.default.fileExists(atPath: url.path) else {
                    Issue.record("\(path): the link (\(target)) names \(url.path), which does not exist")
                    continue
                }
                if parts.count == 2, url.pathExtension == "md" {
                    let anchors = Self.anchors(in: try String(contentsOf: url, encoding: .utf8))
                    #expect(anchors.contains(parts[1]), "\(path): the link (\(target)) names no heading of \(url.lastPathComponent)")
                }
            }
        }
        #expect(checked > 30)
    }

    /// Where each heading of the README of before issue 34 (1,056 lines) went.
    static let formerHeadings: [(heading: String, file: String, now: String)] = [
        ("# Clearance", "README.md", "# Clearance"),
        ("## Coming from another SDK", "README.md", "## Coming from another SDK"),
        ("## A short tour", "Sources/Clearance/Documentation.docc/Clearance.md", "## A short tour"),
        ("## Sign in with OpenID Connect", "Sources/ClearanceOpenID/Documentation.docc/ClearanceOpenID.md", "## Sign in with OpenID Connect"),
        ("## What it does against the alternatives", "docs/Alternatives.md", "# What it does against the alternatives"),
        ("## Modules", "ARCHITECTURE.md", "## Products"),
        ("## The command-line tool", "docs/CommandLine.md", "# The command-line tool"),
        ("## Hub limits", "Sources/ClearanceServer/Documentation.docc/Limits.md", "# Hub limits and what each costs"),
        ("## Running the hub in production", "Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md", "# The operator's guide to clearance serve"),
        ("### Production and development mode", "Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md", "## Production and development mode"),
        ("### The configuration file", "Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md", "## The configuration file"),
        ("### Allowed origins and CORS", "Sources/ClearanceServer/Documentation.docc/OriginsAndCORS.md", "# Allowed origins and CORS"),
        ("### Webhooks", "Sources/ClearanceServer/Documentation.docc/WebhooksGuide.md", "# Webhooks"),
        ("### Authorized connections", "Sources/ClearanceServer/Documentation.docc/AppFeatures.md", "## Authorized connections"),
        ("### Watchlist events", "Sources/ClearanceServer/Documentation.docc/AppFeatures.md", "## Watchlist events"),
        ("### Subscription counts", "Sources/ClearanceServer/Documentation.docc/AppFeatures.md", "## Subscription counts"),
        ("### Terminating a user's connections", "Sources/ClearanceServer/Documentation.docc/AppFeatures.md", "## Terminating a user's connections"),
        ("### Cache channels", "Sources/ClearanceServer/Documentation.docc/AppFeatures.md", "## Cache channels"),
        ("## Operating the hub", "Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md", "## Install"),
        ("### Metrics", "Sources/ClearanceServer/Documentation.docc/MetricsAndReadiness.md", "## Metrics"),
        ("### Health and readiness", "Sources/ClearanceServer/Documentation.docc/MetricsAndReadiness.md", "## Health and readiness"),
        ("### TLS", "Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md", "## TLS"),
        ("### Configuration from the environment", "Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md", "## Configuration from the environment"),
        ("### Reloading the configuration (SIGHUP)", "Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md", "## Reloading the configuration (SIGHUP)"),
        ("### A systemd unit", "Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md", "## A systemd unit"),
        ("## Running a cluster of hubs", "Sources/ClearanceServer/Documentation.docc/Cluster.md", "# Running a cluster of hubs on PostgreSQL"),
        ("## Development", "CONTRIBUTING.md", "## Development"),
        ("### Testing", "CONTRIBUTING.md", "### Testing"),
        ("### Fuzzing and sanitizers", "CONTRIBUTING.md", "### Fuzzing and sanitizers"),
    ]

    @Test func everyFormerReadmeHeadingHasAPlace() throws {
        for (heading, file, now) in Self.formerHeadings {
            let lines = try Self.read(file).split(separator: "\n").map(String.init)
            #expect(lines.contains(now), "\(heading): \(file) has no heading '\(now)'")
        }
    }

    @Test func theReadmeFitsOnAFewScreensAndNamesTheLicense() throws {
        let readme = try Self.read("README.md")
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 301)
        #expect(readme.contains("](LICENSE)"))
        #expect(try Self.read("LICENSE").contains("Apache License\n                           Version 2.0, January 2004"))
        #expect(try Self.read("Package.swift").contains("Apache License, Version 2.0"))
    }
}
