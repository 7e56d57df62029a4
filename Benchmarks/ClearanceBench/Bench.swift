/// What `clearance bench` runs: Clearance's speed, each figure against a baseline measured in the
/// same run (speed is measured here, never asserted in unit tests). Build with `-c release` for
/// meaningful numbers.
public enum Bench {
    /// The figures there are.
    public enum Figure: String, CaseIterable, Sendable {
        case credentials, fanIn = "fan-in", signing, hub, history, cluster, outbox, channels, entitlements
    }

    /// Which figures, and their sizes.
    public struct Options: Sendable {
        public var figures: Set<Figure> = Set(Figure.allCases)
        /// Iterations of the credential-application loop.
        public var iterations = 1_000_000
        /// Concurrent requests in the refresh fan-in.
        public var requests = 10_000
        /// Private channels subscribed in the channel-authorization figure.
        public var channels = 2_000
        /// Runs of the channel-authorization figure (the median and spread are reported).
        public var channelRuns = 5
        /// Downloads of the 10 MB edition in the entitlements figure (each way).
        public var downloads = 20
        /// Minutes of the soak; when set, the soak runs instead of the figures.
        public var soakMinutes: Double?
        /// Connections in the soak.
        public var soakConnections = 2_000

        public init() {}
    }

    /// Runs the chosen figures, printing each as it is measured (and, on standard error, what is
    /// being measured while it is: ``BenchStatus``).
    public static func run(_ options: Options) async throws {
        defer { BenchStatus.clear() }
        #if DEBUG
        print("note: this is a debug build; run `swift run -c release clearance bench` for meaningful numbers.\n")
        #endif
        if let minutes = options.soakMinutes {
            try await SoakBench(minutes: minutes, connections: options.soakConnections).run()
            return
        }
        let figures = options.figures
        if figures.contains(.credentials) { try await CredentialApplicationBench(iterations: options.iterations).run() }
        if figures.contains(.fanIn) { try await RefreshFanInBench(requests: options.requests).run() }
        if figures.contains(.signing) { SigningBench().run() }
        if figures.contains(.hub) {
            try FanOutAllocationBench().run()
            try await FanOutBench().run()
        }
        if figures.contains(.history) { try await HistoryBench().run() }
        if figures.contains(.cluster) { try await CrossNodeBench().run() }
        if figures.contains(.outbox) { try await OutboxBench().run() }
        if figures.contains(.channels) { try await ChannelsBench(channels: options.channels, runs: options.channelRuns).run() }
        if figures.contains(.entitlements) { try await EntitlementDownloadBench(downloads: options.downloads).run() }
    }
}
