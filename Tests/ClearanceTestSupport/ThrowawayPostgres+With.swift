import ClearanceDevelopment

extension ThrowawayPostgres {
    /// Starts a throwaway PostgreSQL, runs `body` with it, and destroys it however `body` ends.
    package static func with<T>(_ body: (ThrowawayPostgres) async throws -> T) async throws -> T {
        let database = try await start()
        return try await withCleanup {
            try await body(database)
        } cleanup: {
            await database.destroy()
        }
    }
}
