/// Runs `body`, then `cleanup`, also when `body` throws: a `defer` that can `await`, so that a
/// test's servers are stopped before the test ends whatever happens in it.
package func withCleanup<T>(_ body: () async throws -> T, cleanup: () async -> Void) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
