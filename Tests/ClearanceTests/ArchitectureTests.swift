import ClearanceTestSupport
import Foundation
import Testing

/// ARCHITECTURE.md's module table is the import rule: a module imports only modules listed
/// above it. This keeps the document and the code telling the same story.
@Suite("Architecture")
struct ArchitectureTests {
    /// The modules in the table's order; modules on the same row share a level.
    func levels() throws -> [[String]] {
        let document = try String(contentsOf: PackageRoot.url().appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        // The "Modules" section's table only (the "Products" table further down lists the same names).
        let start = try #require(document.range(of: "\n## Modules\n"))
        let rest = document[start.upperBound...]
        let text = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        return text.split(separator: "\n").compactMap { line -> [String]? in
            guard line.hasPrefix("| `") else { return nil }
            let firstCell = line.dropFirst(2).prefix { $0 != "|" }
            let names = firstCell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
            return names.isEmpty ? nil : names
        }
    }

    @Test func noModuleImportsOneBelowItInTheGraph() throws {
        let levels = try levels()
        let level = Dictionary(levels.enumerated().flatMap { index, names in names.map { ($0, index) } }, uniquingKeysWith: { first, _ in first })
        #expect(level["ClearanceWire"] == 0 && level["clearance"] == levels.count - 1, "\(levels)")
        let root = try PackageRoot.url()
        var violations: [String] = []
        for (module, moduleLevel) in level {
            let directory = ["ClearanceBench": "Benchmarks/ClearanceBench", "ClearanceFuzzing": "Fuzz/ClearanceFuzzing", "ClearanceFuzzer": "Fuzz/ClearanceFuzzer"][module] ?? "Sources/\(module)"
            let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(directory).path)?.compactMap { $0 as? String } ?? []
            #expect(!files.isEmpty, "no sources for \(module) in \(directory)")
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(directory).appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains("import ") {
                    guard let imported = line.split(separator: " ").last.map({ String($0.split(separator: ".")[0]) }),
                          let importedLevel = level[imported], imported != module else { continue }
                    if importedLevel >= moduleLevel { violations.append("\(module)/\(file) imports \(imported)") }
                }
            }
        }
        #expect(violations.isEmpty, "\(violations)")
    }
}
