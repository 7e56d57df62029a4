import ClearanceTestSupport
import Foundation
import Testing

/// `scripts/build-flags`, which `scripts/test` and `scripts/docs` build with: the optimized test
/// build by default, the plain debug build when `CLEARANCE_TEST_BUILD=debug` (as `.ci/run` sets
/// it), and a clear refusal of any other value, before anything is built.
@Suite("The build-flags script")
struct BuildFlagsScriptTests {
    private static func flags(_ choice: String) async throws -> ChildProcess.Output {
        let path = try PackageRoot.url().appendingPathComponent("scripts/build-flags").path
        // An empty value counts as unset, so the test's own environment (CI sets debug) does not leak in.
        return try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/bash"), [path], environment: ["CLEARANCE_TEST_BUILD": choice], timeout: .seconds(30))
    }

    @Test(arguments: ["", "optimized"])
    func theDefaultIsTheOptimizedBuildInItsOwnScratchPath(_ choice: String) async throws {
        let output = try await Self.flags(choice)
        #expect(output.status == 0, "\(output.stderr)")
        let words = output.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(words.starts(with: ["--scratch-path", ".build-opt"]), "\(words)")
        #expect(words.contains("-O") && words.contains("-assert-config") && words.contains("Debug"), "\(words)")
    }

    @Test func debugIsThePlainDebugBuildThatSwiftBuildMakes() async throws {
        let output = try await Self.flags("debug")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.split(whereSeparator: \.isWhitespace).map(String.init) == ["--scratch-path", ".build"])
    }

    @Test func anotherValueIsRefusedWithItsName() async throws {
        let output = try await Self.flags("release")
        #expect(output.status == 64)
        #expect(output.stdout.isEmpty, "\(output.stdout)")
        #expect(output.stderr.contains("CLEARANCE_TEST_BUILD is 'release'"), "\(output.stderr)")
        #expect(output.stderr.contains("optimized or debug"), "\(output.stderr)")
    }
}
