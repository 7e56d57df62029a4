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
    @Option(help: "Which figures: \(Bench.Figure.allCases.map(\.rawValue).joined(separator: ", ")) (comma-separated; default all).") var only: String?

    func run() async throws {
        var options = Bench.Options()
        options.iterations = iterations
        options.requests = requests
        options.channels = channels
        options.channelRuns = max(1, channelRuns)
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
