import ClearanceTestSupport
import Foundation
import Testing

/// libFuzzer writes `crash-…`, `leak-…`, `timeout-…` and `oom-…` files into its working directory
/// unless told otherwise: two were once committed at the root. `scripts/fuzz` names an artifact
/// folder in every libFuzzer invocation, and that folder and the root patterns are git-ignored.
@Suite("Fuzz artifacts stay out of the repository")
struct FuzzArtifactPlacementTests {
    static let artifactPrefixes = ["crash-", "leak-", "timeout-", "oom-", "slow-unit-"]

    @Test func noArtifactLiesAtThePackageRoot() throws {
        let root = try PackageRoot.url()
        let strays = try FileManager.default.contentsOfDirectory(atPath: root.path)
            .filter { name in Self.artifactPrefixes.contains { name.hasPrefix($0) } }
        #expect(strays.isEmpty, "libFuzzer artifacts at the root: \(strays)")
    }

    @Test func everyLibFuzzerInvocationOfScriptsFuzzNamesItsArtifactFolder() throws {
        let script = try String(contentsOf: PackageRoot.url().appendingPathComponent("scripts/fuzz"), encoding: .utf8)
        // A command may continue over lines ending in a backslash: join them first.
        let commands = script.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
        let invocations = commands.filter { $0.contains("\"$fuzzer\"") }
        #expect(invocations.count == 2, "expected the fuzzing run and the -merge=1 pass, found \(invocations)")
        for invocation in invocations {
            #expect(invocation.contains("-artifact_prefix=\"$artifacts/"), "\(invocation)")
        }
        #expect(script.contains("artifacts=\"$scratch/crashes\"") && script.contains("scratch=.build-fuzz"))
    }

    @Test func gitIgnoresTheArtifactFolderAndRootArtifacts() throws {
        let ignore = try String(contentsOf: PackageRoot.url().appendingPathComponent(".gitignore"), encoding: .utf8)
        let patterns = Set(ignore.split(separator: "\n").map(String.init))
        #expect(patterns.contains(".build-*"), "the scratch folder .build-fuzz must be ignored")
        for prefix in Self.artifactPrefixes {
            #expect(patterns.contains("/\(prefix)*"), "missing /\(prefix)* in .gitignore")
        }
    }
}
