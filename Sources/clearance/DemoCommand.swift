import ArgumentParser
import ClearanceDemo

/// `clearance demo`: runs every job on embedded loopback servers and reports step by step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run Clearance against embedded loopback servers and report what happens, step by step.",
        discussion: "Needs no setup and no network: every server binds to 127.0.0.1 on a free port. Exits 0 only when every step behaved as expected."
    )

    func run() async throws {
        Demo.bootstrapLogging()
        guard try await Demo.run() else { throw ExitCode(1) }
    }
}
