import ClearanceOAuth2
import ClearanceTestSupport
import Crypto
import Foundation
import Testing

/// The encrypted file store: round trip, permissions, corrupt and wrong-key files, keys.
@Suite(.timeLimit(.minutes(1))) struct SessionStoreTests {
    static func sample(_ n: Int = 1) -> StoredSession {
        StoredSession(
            token: OAuth2Token(accessToken: "at-\(n)", refreshToken: "rt-\(n)", expiresAt: Date(timeIntervalSince1970: 2_000_000_000), scopes: ["a"], obtainedAt: Date(timeIntervalSince1970: 1_900_000_000)),
            endpoints: OAuth2Endpoints(token: URL(string: "https://auth.example.com/token")!),
            client: OAuth2Client(id: "id", secret: "secret"), headerScheme: "Bearer", savedAt: Date(timeIntervalSince1970: 1_900_000_000))
    }

    @Test func roundTripsEncryptedWithMode0600() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("nested/session.json")
        let store = EncryptedFileSessionStore(fileURL: file, key: .generate())
        #expect(try await store.load() == nil)
        try await store.save(Self.sample())
        #expect(try await store.load() == Self.sample())
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let parent = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
        #expect((parent[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let raw = try String(contentsOf: file, encoding: .utf8)
        #expect(!raw.contains("at-1") && !raw.contains("rt-1") && !raw.contains("secret"))
        try await store.clear()
        #expect(try await store.load() == nil)
        try await store.clear()  // clearing nothing is fine
        #expect(FileManager.default.fileExists(atPath: file.path) == false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path).isEmpty)
    }

    /// The on-disk format, written here by hand from its description, still opens: files saved
    /// before the store became generic keep working.
    @Test func theOnDiskFormatIsUnchanged() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("session.json")
        let key = SessionStoreKey.generate()
        let keyBytes = SymmetricKey(data: Data(base64Encoded: key.base64)!)
        let aad = Data("clearance.oauth2-session/1/\(key.identifier)".utf8)
        let box = try AES.GCM.seal(try JSONEncoder().encode(Self.sample()), using: keyBytes, authenticating: aad)
        let envelope: [String: Any] = ["format": "clearance.oauth2-session", "version": 1, "key_id": key.identifier, "sealed": box.combined!.base64EncodedString()]
        try JSONSerialization.data(withJSONObject: envelope).write(to: file)
        #expect(try await EncryptedFileSessionStore(fileURL: file, key: key).load() == Self.sample())
        #expect(EncryptedFileSessionStore.format == "clearance.oauth2-session")
    }

    @Test func aCorruptFileIsMovedAsideAndReported() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("session.json")
        let store = EncryptedFileSessionStore(fileURL: file, key: .generate())
        try await store.save(Self.sample())
        // Flip a byte inside the sealed box.
        var envelope = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as! [String: Any]
        var sealed = Data(base64Encoded: envelope["sealed"] as! String)!
        sealed[sealed.count / 2] ^= 0x01
        envelope["sealed"] = sealed.base64EncodedString()
        try JSONSerialization.data(withJSONObject: envelope).write(to: file)
        await expectUnreadable(store, code: .corrupt, directory: directory)
        // Plain garbage too.
        try Data("not a session".utf8).write(to: file)
        await expectUnreadable(store, code: .corrupt, directory: directory)
    }

    @Test func aFileSealedWithAnotherKeyIsReportedAsWrongKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("session.json")
        try await EncryptedFileSessionStore(fileURL: file, key: .generate()).save(Self.sample())
        let store = EncryptedFileSessionStore(fileURL: file, key: .generate())
        await expectUnreadable(store, code: .wrongKey, directory: directory)
    }

    func expectUnreadable(_ store: EncryptedFileSessionStore, code: SessionStoreError.Code, directory: TemporaryDirectory) async {
        let before = directory.contents().filter { $0.contains(".corrupt-") }.count
        do {
            _ = try await store.load()
            Issue.record("must fail")
        } catch {
            #expect(error.code == code)
            let aside = error.movedAside
            #expect(aside != nil)
            #expect(aside.map { FileManager.default.fileExists(atPath: $0.path) } == true)
            #expect(aside?.lastPathComponent.hasPrefix("session.json.corrupt-") == true)
        }
        #expect(!FileManager.default.fileExists(atPath: store.fileURL.path))
        #expect(directory.contents().filter { $0.contains(".corrupt-") }.count == before + 1)
        // After moving aside, the store reads as empty.
        #expect((try? await store.load()) == .some(nil))
    }

    @Test(arguments: [false, true])
    func anUnreadableStoreStartsTheSessionSignedOutWithAnEvent(wrongKey: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("session.json")
        if wrongKey {
            try await EncryptedFileSessionStore(fileURL: file, key: .generate()).save(Self.sample())
        } else {
            // What a non-atomic writer leaves after a crash: a truncated file.
            try Data(#"{"format":"clearance.oauth2-session","version":1,"ke"#.utf8).write(to: file)
        }
        let session = OAuth2Session(configuration: OAuth2SessionConfiguration(
            tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "c",
            store: EncryptedFileSessionStore(fileURL: file, key: .generate()), notificationCenter: nil))
        let events = session.events
        let state = await session.restore()
        guard case .signedOut = state else { Issue.record("\(state)"); return }
        for await event in events {
            guard case .storeUnreadable(let error) = event else { continue }
            #expect(error.code == (wrongKey ? .wrongKey : .corrupt))
            #expect(error.movedAside != nil)
            break
        }
        #expect(directory.contents().contains { $0.hasPrefix("session.json.corrupt-") })
    }

    @Test func aFailedWriteIsReportedAndTheOldFileSurvives() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The parent "directory" is a regular file: every write fails, whatever the user's rights.
        let blocker = directory.file("not-a-directory")
        try Data().write(to: blocker)
        let store = EncryptedFileSessionStore(fileURL: blocker.appendingPathComponent("session.json"), key: .generate())
        await #expect(throws: SessionStoreError.self) { try await store.save(Self.sample()) }
    }

    @Test func keysComeFromFilesAndTheEnvironment() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let keyFile = directory.url.appendingPathComponent("keys/session.key")
        let created = try SessionStoreKey.loadOrCreate(file: keyFile)
        let again = try SessionStoreKey.loadOrCreate(file: keyFile)
        #expect(created.identifier == again.identifier)
        let mode = (try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        #expect(!"\(created)".contains(created.base64))
        let fromEnvironment = try SessionStoreKey.environment("K", in: ["K": created.base64])
        #expect(fromEnvironment.identifier == created.identifier)
        #expect(throws: SessionStoreError.self) { try SessionStoreKey.environment("K", in: [:]) }
        #expect(throws: SessionStoreError.self) { try SessionStoreKey.environment("K", in: ["K": "c2hvcnQ="]) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile.path)
        #expect {
            try SessionStoreKey.file(keyFile)
        } throws: { error in
            (error as? SessionStoreError)?.code == .insecureKeyFile
        }
    }

    @Test func staleTemporaryFilesOfDeadWritersAreRemoved() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file("session.json")
        // A pid that cannot be running (above pid_max) left a temporary file behind.
        let stale = directory.file(".session.json.2147483646.42.tmp")
        try Data("partial".utf8).write(to: stale)
        let store = EncryptedFileSessionStore(fileURL: file, key: .generate())
        try await store.save(Self.sample())
        #expect(directory.contents() == ["session.json"])
    }
}
