import ArgumentParser
import ClearanceBench

/// `clearance bench`: measures Clearance against baselines taken in the same run.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure Clearance against baselines measured in the same run (use `swift run -c release clearance bench`)."
    )

    @Option(help: "Iterations of the credential-application loop.") var iterations = 1_000_000
    @Option(help: "Concurrent requests in the refresh fan-in.") var requests = 10_000
    @Option(help: "Private channels subscribed in the channel-authorization figure.") var channels = 2_000
    @Option(name: .customLong("channel-runs"), help: "Runs of the channel-authorization figure (median and spread reported).") var channelRuns = 5
    @Option(help: "Instead of the figures, a soak of this many minutes: churning clients against `clearance serve`, its memory and file descriptors at the start and the end.") var soak: Double?
    @Option(name: .customLong("soak-connections"), help: "Connections in the soak.") var soakConnections = 2_000
    @Option(help: "Which figures: \(Bench.Figure.allCases.map(\.rawValue).joined(separator: ", ")) (comma-separated; default all).") var only: String?

    func run() async throws {
        var options = Bench.Options()
        options.iterations = iterations
        options.requests = requests
        options.channels = channels
        options.channelRuns = max(1, channelRuns)
        if let soak {
            guard soak > 0, soak <= 24 * 60 else { throw ValidationError("--soak must be more than 0 and at most 1440 minutes.") }
            guard (1...20_000).contains(soakConnections) else { throw ValidationError("--soak-connections must be between 1 and 20,000.") }
            options.soakMinutes = soak
            options.soakConnections = soakConnections
        }
        if let only {
            var figures = Set<Bench.Figure>()
            for name in only.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let figure = Bench.Figure(rawValue: name) else {
                    throw ValidationError("Unknown figure '\(name)'; choose from \(Bench.Figure.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                figures.insert(figure)
            }
            options.figures = figures
        }
        try await Bench.run(options)
    }
}
