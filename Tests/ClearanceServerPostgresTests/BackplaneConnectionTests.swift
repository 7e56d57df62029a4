@testable import ClearanceServerPostgres
import Clearance
import ClearanceDevelopment
import ClearanceTestSupport
import Testing

/// The connection beside the link (webhook queue, occupancy, terminations) is closed when its
/// owner stops, also when it was still opening then: postgres-nio asserts, in a debug build,
/// that a connection is closed before it is freed, and a stopping node once crashed there.
@Suite("BackplaneConnection", .timeLimit(.minutes(2)))
struct BackplaneConnectionTests {
    @Test func aConnectionOpeningWhenItsOwnerClosesIsClosedOnceOpenAndNoneOpensAfter() async throws {
        try await ThrowawayPostgres.with { database in
            let configuration = try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test)
            var closedWhileOpening = 0
            for round in 0..<40 where closedWhileOpening < 3 {
                let connection = BackplaneConnection(configuration: configuration, id: round, logger: TestHub.quietLogger)
                let finished = Locked(false)
                let work = Task {
                    defer { finished.withLock { $0 = true } }
                    return try await connection.run { _, _ in true }
                }
                // Close while it opens, when the test sees that moment (the opening takes a
                // connection, a login and the tables' check: long enough, mostly).
                while !(await connection.isOpening), !finished.withLock({ $0 }) { await Task.yield() }
                let opening = await connection.isOpening
                await connection.close()
                let result = await work.result
                if opening {
                    closedWhileOpening += 1
                    #expect(throws: BackplaneConnection.Closed.self) { try result.get() }
                }
                // Closed: it opens none any more.
                await #expect(throws: BackplaneConnection.Closed.self) { try await connection.run { _, _ in true } }
            }
            #expect(closedWhileOpening > 0, "the test never closed a connection while it opened")
            // No connection is left open: only psql's own.
            try await eventually("every connection the test opened is closed") {
                try await ClusterWebhookTests.count(
                    "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()", database) == 0
            }
        }
    }

    /// An opening that fails after its owner closed the connection (a loaded machine's connect
    /// timeout; here the database hangs up during the login) ends with `Closed`, as one that
    /// opened does: the owner asked it to close, and the failure is moot.
    @Test func anOpeningThatFailsAfterItsOwnerClosedItEndsClosed() async throws {
        let database = try SilentListener()
        var configuration = try PostgresBackplaneConfiguration(url: "postgres://clearance@127.0.0.1:\(database.port)/clearance", clusterKey: .test)
        configuration.connection.options.connectTimeout = .seconds(600)  // it fails when the test hangs up, not before
        let connection = BackplaneConnection(configuration: configuration, id: 1, logger: TestHub.quietLogger)
        let work = Task { try await connection.run { _, _ in true } }
        try await eventually("the connection is opening") { await connection.isOpening }
        let closing = Task { await connection.close() }
        try await eventually("its owner closed it") { await connection.isClosed }
        #expect(database.hangUpNext(within: .seconds(30)), "the connection never reached the database")
        await closing.value
        await #expect(throws: BackplaneConnection.Closed.self) { try await work.value }
    }
}
