import ClearanceFuzzing
import ClearanceTestSupport
import Foundation
import Testing

/// Every input of the committed fuzz corpus (`Fuzz/Corpus/<target>/`, minimized by
/// `scripts/fuzz`) fed to the same entry function the fuzzer runs, without sanitizers: no crash,
/// every invariant holds.
@Suite("Fuzz corpus replay")
struct CorpusReplayTests {
    @Test(arguments: FuzzTarget.all.map(\.name))
    func everyCorpusInputPasses(_ name: String) async throws {
        let target = try #require(FuzzTarget.named(name))
        let directory = try PackageRoot.url().appendingPathComponent("Fuzz/Corpus/\(name)")
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        #expect(!files.isEmpty, "no corpus for \(name): run scripts/fuzz \(name)")
        let inputs = try files.map { ($0.lastPathComponent, try Data(contentsOf: $0)) }
        let violations = await onOwnThread { () -> [String] in
            inputs.compactMap { file, data -> String? in
                do {
                    try target.run(data)
                    return nil
                } catch {
                    return "\(file): \(error)"
                }
            }
        }
        #expect(violations.isEmpty, "\(violations)")
    }
}
