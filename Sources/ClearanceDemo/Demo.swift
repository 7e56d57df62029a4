import ClearanceDevelopment
import Logging

/// What `clearance demo` runs: every job of Clearance against development servers on
/// 127.0.0.1 (free ports, no setup, no network), reported step by step on standard output.
public enum Demo {
    /// Makes the demo's log the process's logging system (call it once, before ``run()``): each
    /// log line then belongs to the step that logged it, and nothing raw is printed between the
    /// steps unless nobody expected it.
    public static func bootstrapLogging() {
        LoggingSystem.bootstrap { label in DemoLog.shared.handler(label: label) }
        DemoLog.shared.markInstalled()
    }

    /// Runs every part; returns true when every step behaved as expected.
    public static func run() async throws -> Bool {
        let report = DemoReport()
        print("Clearance demo: embedded servers on 127.0.0.1, no network needed.")
        let servers = try await DemoServers.start()
        await APIAuthorizationDemo(servers: servers, report: report).run()
        await CustomerTokensDemo(servers: servers, report: report).run()
        await servers.stop()
        try await OAuth2Demo(report: report).run()
        try await OpenIDDemo(report: report).run()
        try await RealtimeDemo(report: report).run()
        try await ChannelsDemo(report: report).run()
        try await EntitlementsDemo(report: report).run()
        print("""

            Next: `clearance serve --development` runs these development servers on one port for your app and \
            tests (public users and passwords: never in production); `clearance serve --config hub.json` is the \
            production hub (WebSocket endpoint and HTTP API only; see the operator's guide, \
            Sources/ClearanceServer/Documentation.docc/OperatorsGuide.md).
            """)
        report.summary()
        return report.allPassed
    }
}

/// The embedded servers the API part talks to: the API and a second origin for redirects.
struct DemoServers {
    let api: DemoAPI
    let apiServer: RunningServer
    let other: DemoAPI
    let otherServer: RunningServer

    static func start() async throws -> DemoServers {
        let quiet = Logger.silent("clearance.demo.server")
        let api = await DemoAPI()
        let other = await DemoAPI(apiKey: "other-origin-key")
        let apiServer = try await RunningServer.start(api.router(), logger: quiet)
        let otherServer = try await RunningServer.start(other.router(), logger: quiet)
        return DemoServers(api: api, apiServer: apiServer, other: other, otherServer: otherServer)
    }

    func stop() async {
        await apiServer.stop()
        await otherServer.stop()
    }
}
