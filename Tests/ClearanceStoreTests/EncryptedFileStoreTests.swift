import ClearanceStore
import ClearanceTestSupport
import Crypto
import Foundation
import Testing

/// The generic encrypted file store: any Codable value, formats kept apart, nothing in clear.
@Suite(.timeLimit(.minutes(1))) struct EncryptedFileStoreTests {
    struct CustomerToken: Codable, Sendable, Equatable {
        var token: String
        var expiresAt: Date
    }

    @Test func keepsAnyCodableValueEncryptedWithMode0600() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("nested/customer-token.json")
        let store = EncryptedFileStore<CustomerToken>(fileURL: file, key: .generate(), format: "com.example.customer-token")
        #expect(try await store.load() == nil)
        let value = CustomerToken(token: "eyJ-customer-secret", expiresAt: Date(timeIntervalSince1970: 2_000_000_000))
        try await store.save(value)
        #expect(try await store.load() == value)
        let raw = try String(contentsOf: file, encoding: .utf8)
        #expect(!raw.contains("customer-secret"))
        #expect(raw.contains(#""format":"com.example.customer-token""#))
        #expect(AtomicFile.permissions(of: file.path) == 0o600)
        #expect(AtomicFile.permissions(of: file.deletingLastPathComponent().path) == 0o700)
        try await store.clear()
        #expect(try await store.load() == nil)
    }

    /// A value saved in `value.json` in the format "one"; its file and key.
    func savedInFormatOne(_ directory: TemporaryDirectory) async throws -> (URL, SessionStoreKey) {
        let file = directory.file("value.json")
        let key = SessionStoreKey.generate()
        try await EncryptedFileStore<CustomerToken>(fileURL: file, key: key, format: "one").save(CustomerToken(token: "t", expiresAt: Date()))
        return (file, key)
    }

    @Test func aFileOfAnotherFormatIsRefusedAndMovedAside() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (file, key) = try await savedInFormatOne(directory)
        let other = EncryptedFileStore<CustomerToken>(fileURL: file, key: key, format: "two")
        do {
            _ = try await other.load()
            Issue.record("a file of another format must not open")
        } catch {
            #expect(error.code == .corrupt)
            #expect(error.qualifiedCode == "session_store.corrupt")
            #expect(error.movedAside.map { FileManager.default.fileExists(atPath: $0.path) } == true)
        }
        #expect(try await other.load() == nil)
    }

    @Test func aFormatRenamedInTheEnvelopeFailsAuthentication() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (file, key) = try await savedInFormatOne(directory)
        // Relabel the envelope: the format is authenticated, so the tag no longer verifies.
        let relabelled = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: #""format":"one""#, with: #""format":"two""#)
        try Data(relabelled.utf8).write(to: file)
        let other = EncryptedFileStore<CustomerToken>(fileURL: file, key: key, format: "two")
        await #expect(throws: SessionStoreError.self) { try await other.load() }
    }

    @Test func oneKeySealsSeveralFilesAndTheInMemoryStoreBehavesAlike() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = try SessionStoreKey.loadOrCreate(file: directory.file("store.key"))
        let first = EncryptedFileStore<[String]>(fileURL: directory.file("a.json"), key: key, format: "list")
        let second = EncryptedFileStore<Int>(fileURL: directory.file("b.json"), key: key, format: "number")
        try await first.save(["x", "y"])
        try await second.save(42)
        #expect(try await first.load() == ["x", "y"])
        #expect(try await second.load() == 42)

        let memory = InMemoryStore<Int>()
        try await memory.save(7)
        #expect(try await memory.load() == 7 && memory.current == 7)
        try await memory.clear()
        #expect(try await memory.load() == nil)
    }

    @Test func theDefaultDirectoryFollowsXDG() {
        #if !canImport(Darwin)
        #expect(SecureStoreLocation.defaultDirectory(environment: ["XDG_CONFIG_HOME": "/tmp/xdg"]).path == "/tmp/xdg/clearance")
        #endif
        #expect(SecureStoreLocation.defaultDirectory().lastPathComponent.lowercased() == "clearance")
    }
}
