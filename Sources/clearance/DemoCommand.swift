import ArgumentParser
import Clearance
import ClearanceHTTP
import ClearanceServer
import Foundation
import HTTPTypes
import Logging

/// `clearance demo`: runs every job on embedded loopback servers and reports step by step.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run Clearance against embedded loopback servers and report what happens, step by step.",
        discussion: "Needs no setup and no network: every server binds to 127.0.0.1 on a free port. Exits 0 only when every step behaved as expected."
    )

    func run() async throws {
        let report = DemoReport()
        print("Clearance demo: embedded servers on 127.0.0.1, no network needed.")
        let servers = try await DemoServers.start()
        await APIAuthorizationDemo(servers: servers, report: report).run()
        await servers.stop()
        try await OAuth2Demo(report: report).run()
        try await RealtimeDemo(report: report).run()
        try await ChannelsDemo(report: report).run()
        report.summary()
        if !report.allPassed { throw ExitCode(1) }
    }
}

/// The embedded servers the demo talks to: the API and a second origin for redirects.
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
