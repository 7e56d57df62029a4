import ClearanceTestSupport
import Foundation
import Testing

/// Every target, tests included, imports exactly what `Package.swift` declares for it (issue 31):
/// a module reached only through another's transitive visibility compiles today and breaks when
/// that other module drops it. SwiftPM's `--explicit-target-dependency-import-check` checks only
/// the package's own targets; this compares each target's `import` lines with the dependencies
/// `swift package dump-package` gives, both ways, and ARCHITECTURE.md's module table with them.
@Suite("Declared imports")
struct DeclaredImportsTests {
    /// Modules of the platform: imported without a declaration.
    static let system: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch", "Glibc", "Musl", "Darwin",
        "Testing", "XCTest", "Synchronization", "_Concurrency", "_StringProcessing", "RegexBuilder", "os", "Security",
        "CryptoKit", "AuthenticationServices", "StoreKit", "ObjectiveC", "UIKit", "AppKit", "WinSDK", "Android",
    ]

    /// A product whose module has another name.
    static let moduleOfProduct = ["CryptoExtras": "_CryptoExtras"]

    /// One target of the manifest: its name, kind, folder and declared dependencies (module names),
    /// and for each product dependency the package it comes from.
    struct Target {
        let name: String
        let type: String
        let path: String
        let dependencies: Set<String>
        let packages: Set<String>
    }

    /// The targets, as `swift package dump-package` reads the manifest.
    static func targets() async throws -> [Target] {
        let root = try PackageRoot.url()
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        // A scratch path of its own: the test runs while `swift test` holds the package's.
        let output = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"),
            ["-c", #"exec swift package --package-path "$0" --scratch-path "$1" dump-package"#, root.path, scratch.url.path],
            timeout: .seconds(120))
        #expect(output.status == 0, "\(output.stderr.suffix(2_000))")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let targets = try #require(json["targets"] as? [[String: Any]])
        return try targets.map { target in
            let name = try #require(target["name"] as? String)
            let type = try #require(target["type"] as? String)
            var dependencies: Set<String> = []
            var packages: Set<String> = []
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                for (kind, value) in dependency {
                    guard let parts = value as? [Any], let first = parts.first as? String else { continue }
                    dependencies.insert(moduleOfProduct[first] ?? first)
                    if kind == "product", parts.count > 1, let package = parts[1] as? String { packages.insert(package) }
                }
            }
            let path = target["path"] as? String ?? (type == "test" ? "Tests/\(name)" : "Sources/\(name)")
            return Target(name: name, type: type, path: path, dependencies: dependencies, packages: packages)
        }
    }

    /// The modules the Swift files under `directory` import (`import X`, `@testable import X`,
    /// `import struct X.Y`, inside `#if` or not), leaving out multi-line string literals.
    static func imports(under directory: URL) throws -> Set<String> {
        let pattern = try Regex(#"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public\s+|package\s+|internal\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)"#)
        var found: Set<String> = []
        let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            var insideString = false
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.components(separatedBy: "\"\"\"").count % 2 == 0 {
                    insideString.toggle()
                    continue
                }
                guard !insideString, let match = try pattern.firstMatch(in: String(line)), let module = match.output[1].substring else { continue }
                found.insert(String(module))
            }
        }
        return found
    }

    @Test func everyTargetImportsExactlyWhatItDeclares() async throws {
        let root = try PackageRoot.url()
        let targets = try await Self.targets()
        #expect(targets.count > 20, "\(targets.map(\.name))")
        let executables = Set(targets.filter { $0.type == "executable" }.map(\.name))
        var problems: [String] = []
        for target in targets {
            let imported = try Self.imports(under: root.appendingPathComponent(target.path)).subtracting(Self.system).subtracting([target.name])
            #expect(!imported.isEmpty || target.dependencies.isEmpty, "no imports read for \(target.name) in \(target.path)")
            let undeclared = imported.subtracting(target.dependencies)
            // A test target depends on an executable so that it is built for the test to run.
            let unused = target.dependencies.subtracting(imported).subtracting(executables)
            if !undeclared.isEmpty { problems.append("\(target.name) imports \(undeclared.sorted()) without declaring them") }
            if !unused.isEmpty { problems.append("\(target.name) declares \(unused.sorted()) and never imports them") }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
    }

    /// ARCHITECTURE.md's module table: the last column of each module's row names exactly what
    /// the module declares, its own modules by their short names (`core` for `Clearance`,
    /// `HTTP` for `ClearanceHTTP`) and the other packages by their names in `Package.swift`;
    /// products in parentheses are comments.
    @Test func theModuleTableNamesWhatEachModuleDeclares() async throws {
        let document = try String(contentsOf: PackageRoot.url().appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        let start = try #require(document.range(of: "\n## Modules\n"))
        let rest = document[start.upperBound...]
        let table = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        let targets = Dictionary(uniqueKeysWithValues: try await Self.targets().map { ($0.name, $0) })
        var rows = 0
        var problems: [String] = []
        for line in table.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let names = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            let column = cells[cells.count - 2].replacing(try Regex(#"\([^)]*\)"#), with: "")
            let listed = Set(column.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && $0 != "—" })
            for name in names {
                rows += 1
                guard let target = targets[name] else {
                    problems.append("\(name) is in the table but not in Package.swift")
                    continue
                }
                let own = target.dependencies.filter { targets[$0] != nil }.map { $0 == "Clearance" ? "core" : $0 == "clearance" ? $0 : String($0.dropFirst("Clearance".count)) }
                let declared = Set(own).union(target.packages)
                if declared != listed {
                    problems.append("\(name): the table lists \(listed.sorted()), Package.swift declares \(declared.sorted())")
                }
            }
        }
        #expect(rows == targets.values.filter { $0.type != "test" && !$0.path.hasPrefix("Tests/") }.count, "every module of Package.swift has a row")
        #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
    }
}
