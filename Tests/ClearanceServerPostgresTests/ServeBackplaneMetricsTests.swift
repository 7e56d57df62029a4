import ClearanceDevelopment
import ClearanceServerPostgres
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance_backplane_connected` of a real `clearance serve --backplane` follows its database:
/// 1 once linked, 0 while the database is down, 1 again once it is back.
@Suite("clearance serve backplane metric", .timeLimit(.minutes(3)))
struct ServeBackplaneMetricsTests {
    @Test func backplaneConnectedFollowsTheDatabase() async throws {
        try await ThrowawayPostgres.with { database in
            let port = try LoopbackPort.free()
            let metricsPort = try LoopbackPort.free()
            let configuration = try ServeProcess.writeConfiguration(port: port)
            defer { try? FileManager.default.removeItem(at: configuration) }
            let node = try await ServeProcess.start(
                configuration: configuration, port: port, development: false, arguments: ["--metrics-port", "\(metricsPort)"],
                environment: ["CLEARANCE_BACKPLANE_URL": database.url, "CLEARANCE_CLUSTER_KEY": BackplaneClusterKey.testSecret])
            try await withCleanup {
                let url = "http://127.0.0.1:\(metricsPort)/metrics"
                #expect(await node.process.line(timeout: .seconds(30)) { $0.hasPrefix("backplane connected node=") } != nil, "\(node.process.stderr)")
                try await eventually("connected") { try await PrometheusScrape.scrape(url).value("clearance_backplane_connected") == 1 }
                try await database.stopDatabase()
                try await eventually("disconnected", timeout: .seconds(30)) {
                    try await PrometheusScrape.scrape(url).value("clearance_backplane_connected") == 0
                }
                try await database.startDatabase()
                try await eventually("connected again", timeout: .seconds(40)) {
                    try await PrometheusScrape.scrape(url).value("clearance_backplane_connected") == 1
                }
            } cleanup: {
                await node.stop(.kill)
            }
        }
    }
}
