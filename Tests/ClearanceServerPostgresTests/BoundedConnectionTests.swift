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
    /// Runs `body` with a throwaway database, a connection to it and that connection bounded
    /// (its close waiting `closeWait` at most for running work).
    static func withConnection(
        closeWait: Duration = .seconds(2), _ body: (ThrowawayPostgres, PostgresConnection, BoundedConnection) async throws -> Void
    ) async throws {
        try await ThrowawayPostgres.with { database in
            let configuration = try PostgresBackplaneConfiguration(url: database.url, clusterKey: .test)
            let connection = try await PostgresConnection.connect(configuration: configuration.connection, id: 1, logger: TestHub.quietLogger)
            try await body(database, connection, BoundedConnection(connection, closeWait: closeWait))
        }
    }

    /// The whole numbers `query` answers.
    static func values(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [Int] {
        var values: [Int] = []
        for try await value in try await connection.query(query, logger: TestHub.quietLogger).decode(Int.self) { values.append(value) }
        return values
    }

    @Test func aQueryOnAClosedConnectionFailsAtOnce() async throws {
        try await Self.withConnection { database, connection, bounded in
            let answer = try await bounded.run { try await Self.values("SELECT 1", on: connection) }
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

    /// A query written after the connection closed would never be answered, and its task, with
    /// the connection it holds, never freed: `close()` refuses new work and lets the work that
    /// runs end first.
    @Test func closingLetsTheWorkRunningEndThenClosesAndRefusesMore() async throws {
        // A wait longer than any test: the close must wait for the release, however loaded the machine.
        try await Self.withConnection(closeWait: .seconds(3_600)) { _, connection, bounded in
            let (started, release) = (Gate(), Gate())
            let work = Task {
                try await bounded.run {
                    started.open()
                    await release.wait()
                    return try await Self.values("SELECT 2", on: connection)
                }
            }
            await started.wait()
            let closing = Task { try await bounded.close() }
            try await eventually("close() refuses new work") { (try? await bounded.run { 0 }) == nil }
            #expect(!connection.isClosed, "closed while work was running")
            release.open()
            #expect(try await work.value == [2])
            try await closing.value
            #expect(connection.isClosed)
            #expect(bounded.running == 0)
        }
    }

    /// The database closes the connection between two queries of one piece of work: its caller
    /// hears `ConnectionLost` as the connection closes, not after the next query (which
    /// postgres-nio never answers: the work's own task is left behind, the case that
    /// scripts/sanitize-suppressions/leak.supp names `BoundedConnectionC3run`).
    @Test func workWhoseConnectionTheDatabaseClosesBetweenTwoQueriesEndsAsItCloses() async throws {
        try await Self.withConnection { database, connection, bounded in
            let (firstAnswered, release, secondAsked) = (Gate(), Gate(), Gate())
            let work = Task {
                try await bounded.run {
                    try await connection.query("SELECT 1", logger: TestHub.quietLogger)
                    firstAnswered.open()
                    await release.wait()
                    secondAsked.open()
                    return try await connection.query("SELECT 2", logger: TestHub.quietLogger)
                }
            }
            await firstAnswered.wait()
            try await database.stopDatabase()
            try? await connection.closeFuture.get()
            await #expect(throws: BoundedConnection.ConnectionLost.self) { try await work.value }
            release.open()  // its second query goes to a closed connection, and is never answered
            await secondAsked.wait()
        }
    }

    /// Work that never ends holds a close for `closeWait` at most.
    @Test func workThatNeverEndsHoldsACloseForItsWaitAtMost() async throws {
        try await Self.withConnection(closeWait: .milliseconds(50)) { _, connection, bounded in
            let (started, never) = (Gate(), Gate())
            let work = Task { try await bounded.run { started.open(); await never.wait(); return 0 } }
            await started.wait()
            try await bounded.close()
            #expect(connection.isClosed)
            await #expect(throws: BoundedConnection.ConnectionLost.self) { try await work.value }
            never.open()
        }
    }
}
