import ClearanceStore
import Foundation
import Testing

/// The Swift blocks of `ClearanceStore`'s landing page and of `EncryptedFileStore`'s doc comment,
/// compiled (they write to the user's default directory, so they are not run here; the store
/// itself is `EncryptedFileStoreTests`' subject). `DocumentationTests` checks the documents show
/// the marked regions.
enum StoreDocExamples {
    static func landingPage(jwt: String, expiry: Date) async throws -> Bool {
        // snippet: begin
        struct CustomerToken: Codable, Sendable { var token: String; var expiresAt: Date }
        let directory = SecureStoreLocation.defaultDirectory()
        let store = EncryptedFileStore<CustomerToken>(
            fileURL: directory.appending(path: "customer-token.json"),
            key: try .loadOrCreate(file: directory.appending(path: "session.key")),
            format: "com.example.customer-token")
        try await store.save(CustomerToken(token: jwt, expiresAt: expiry))
        let restored = try await store.load()      // nil when nothing is stored
        // snippet: end
        return restored != nil
    }

    static func encryptedFileStoreDocComment(keyFile: URL, jwt: String, expiry: Date) async throws {
        // snippet: begin
        struct CustomerToken: Codable, Sendable { var token: String; var expiresAt: Date }
        let store = EncryptedFileStore<CustomerToken>(
            fileURL: SecureStoreLocation.defaultDirectory().appending(path: "customer-token.json"),
            key: try .loadOrCreate(file: keyFile), format: "com.example.customer-token")
        try await store.save(CustomerToken(token: jwt, expiresAt: expiry))
        // snippet: end
    }
}
