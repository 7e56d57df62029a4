@testable import ClearanceServerPostgres
import ClearanceDevelopment
import ClearanceTestSupport
import PostgresNIO
import Testing

/// postgres-nio never answers a query written to a connection that already closed; the
/// backplane's queries end with the connection instead of waiting for ever (which once left a
/// node unable to stop after its database restarted).
@Suite("Bounded queries", .timeLimit(.minutes(1)))
struct BoundedConnectionTests {
    @Test func aQueryOnAClosedConnectionFailsAtOnce() async throws {
        try await ThrowawayPostgres.with { database in
            let configuration = try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test)
            let connection = try await PostgresConnection.connect(configuration: configuration.connection, id: 1, logger: TestHub.quietLogger)
            let bounded = BoundedConnection(connection)
            let answer = try await bounded.run {
                var values: [Int] = []
                for try await (value) in try await connection.query("SELECT 1", logger: TestHub.quietLogger).decode(Int.self) { values.append(value) }
                return values
            }
            #expect(answer == [1])
            try await database.stopDatabase()
            try? await connection.closeFuture.get()
            let start = ContinuousClock.now
            await #expect(throws: BoundedConnection.ConnectionLost.self) {
                try await bounded.run { try await connection.query("SELECT 1", logger: TestHub.quietLogger) }
            }
            #expect(ContinuousClock.now - start < TestTiming.slowed(.seconds(1)))
        }
    }
}
