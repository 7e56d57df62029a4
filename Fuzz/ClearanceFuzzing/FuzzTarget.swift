import Foundation

/// One fuzz target: a name (`scripts/fuzz json`, `Fuzz/Corpus/json/`) and the function libFuzzer
/// and the corpus replay test both feed every input to.
///
/// `run` must never crash on any input; it throws ``FuzzViolation`` when an invariant it checks
/// (a round trip, a limit) does not hold. The fuzzer turns that into a crash; the replay test
/// into a failure naming the corpus file.
package struct FuzzTarget: Sendable {
    package let name: String
    /// What the target feeds its input to, listed by the driver's usage text.
    package let summary: String
    package let run: @Sendable (Data) throws(FuzzViolation) -> Void

    package init(name: String, summary: String, run: @escaping @Sendable (Data) throws(FuzzViolation) -> Void) {
        self.name = name
        self.summary = summary
        self.run = run
    }

    /// Every target, in the order `scripts/fuzz` runs them.
    package static let all: [FuzzTarget] = [
        .json, .hubFrame, .clientFrame, .httpAPI, .authForm, .tokenResponse, .sessionStore, .jwt, .appStoreJWS, .pugpigXML,
    ]

    /// The target named `name`.
    package static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}
