import Foundation

/// The public test vectors copied from `../shared/vectors/` into `Tests/ClearanceTestSupport/Fixtures/`.
package enum Fixture {
    /// The bytes of `Fixtures/<name>`.
    package static func data(_ name: String) throws -> Data {
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard let url = Bundle.module.url(forResource: parts[0], withExtension: parts.count > 1 ? parts[1] : nil, subdirectory: "Fixtures") else {
            throw ChildProcess.Failure("Fixtures/\(name) is not in ClearanceTestSupport's bundle")
        }
        return try Data(contentsOf: url)
    }
}
