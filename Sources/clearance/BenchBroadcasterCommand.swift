import ArgumentParser
import ClearanceBench

/// `clearance bench-broadcaster` (hidden): the minimal broadcaster `clearance bench` measures the
/// hub's fan-out against, as a process of its own.
struct BenchBroadcasterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-broadcaster",
        abstract: "The minimal WebSocket broadcaster the hub's fan-out is measured against (used by clearance bench).",
        shouldDisplay: false
    )

    @Option(help: "The port on 127.0.0.1; 0 picks a free one.") var port = 0

    func run() async throws {
        try await BaselineBroadcaster.run(port: port)
    }
}
