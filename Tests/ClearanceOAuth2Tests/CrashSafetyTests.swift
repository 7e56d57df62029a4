import ClearanceOAuth2
import ClearanceTestSupport
import Foundation
import Testing

/// A child process writing sessions is killed with SIGKILL at random moments, again and again;
/// every time, the store reads back as the last session the child reported durable or the one
/// it was writing, never a corrupt file.
@Suite struct CrashSafetyTests {
    /// How many kills: 200 by default, `CLEARANCE_CRASH_ITERATIONS` to change.
    static let iterations = ProcessInfo.processInfo.environment["CLEARANCE_CRASH_ITERATIONS"].flatMap(Int.init) ?? 200

    @Test func sigkillMidWriteLeavesTheOldOrTheNewSessionNeverACorruptOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyFile = directory.file("session.key")
        let key = try SessionStoreKey.loadOrCreate(file: keyFile)
        let file = directory.file("session.json")
        var generator = SystemRandomNumberGenerator()
        var stored = 0  // the generation in the store (0: none yet)
        var killsMidStream = 0

        for iteration in 0..<Self.iterations {
            let child = try ClearanceExecutable.start(["session", "stress-write", "--store", file.path, "--key-file", keyFile.path, "--start", "\(stored + 1)"])
            // Wait for the first durable write half the time, so kills land both early and mid-stream.
            if iteration % 2 == 0 {
                do {
                    try await eventually("iteration \(iteration): the child's first durable write") { !committed(child).isEmpty }
                } catch {
                    await child.stop(.kill)
                    throw error
                }
            }
            // sleep: not a wait; the kill lands at a random moment on purpose (0 to 15 ms on)
            try await Task.sleep(for: .microseconds(Int.random(in: 0...15_000, using: &generator)))
            await child.stop(.kill)
            let reported = committed(child)
            if !reported.isEmpty { killsMidStream += 1 }
            let lastDurable = reported.last ?? stored

            // Read back with a fresh store, as a restarted app would.
            let session: StoredSession?
            do {
                session = try await EncryptedFileSessionStore(fileURL: file, key: key).load()
            } catch {
                Issue.record("iteration \(iteration): the store is unreadable after SIGKILL: \(error)")
                return
            }
            let generation = session.flatMap { Int($0.token.accessToken.replacingOccurrences(of: "stress-access-", with: "")) } ?? 0
            #expect(generation == lastDurable || generation == lastDurable + 1, "iteration \(iteration): store holds \(generation), child reported \(lastDurable)")
            if let session, generation > 0 {
                #expect(session.token.refreshToken == "stress-refresh-\(generation)")
            }
            #expect(generation >= stored)
            stored = generation
        }
        #expect(killsMidStream >= Self.iterations / 2)
        #expect(stored > 0)
        // Nothing was moved aside; temporary files of the killed writers are cleaned up.
        _ = EncryptedFileSessionStore(fileURL: file, key: key)
        #expect(directory.contents() == ["session.json", "session.key"])
    }

    /// The generations the child reported durable so far (complete lines only: a kill can cut the last one).
    private func committed(_ child: ChildProcess) -> [Int] {
        let text = child.stdout
        return text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(text.hasSuffix("\n") ? 0 : 1).compactMap { Int($0) }
    }
}
