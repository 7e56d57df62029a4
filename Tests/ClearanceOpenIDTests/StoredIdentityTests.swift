import Clearance
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceTestSupport
import Foundation
import Testing

/// The identity, the provider's discovery document and its key set are stored with the session,
/// encrypted, and restored: a relaunched process verifies a refreshed ID token without
/// discovering the provider or fetching its keys again.
@Suite("OpenID identity stored with the session")
struct StoredIdentityTests {
    @Test func aRelaunchedSessionRefreshesWithTheStoredDocuments() async throws {
        let provider = try await HostileOpenIDProvider.start()
        let listener = try await LoopbackRedirectListener.start()
        let directory = try TemporaryDirectory()
        try await withCleanup {
            let file = directory.file("session.json")
            let key = SessionStoreKey.generate()
            let openID = try await OpenIDProvider.discover(issuer: provider.issuer)
            let configuration = try await openID.sessionConfiguration(
                clientID: provider.clientID, store: EncryptedFileSessionStore(fileURL: file, key: key),
                storesClientConfiguration: true, notificationCenter: nil)
            let session = OAuth2Session(configuration: configuration)
            try await session.signIn(with: OpenIDAuthorizationCodeFlow(receiver: listener, timeout: .seconds(20)) { try await Browser.follow($0) })
            let first = try #require(session.identity)

            // Encrypted: neither the ID token, the claims nor the key set are readable in the file.
            let bytes = try Data(contentsOf: file)
            for plain in [first.idToken, "hostile-subject-1", "rsa-1", "jwks_uri"] {
                #expect(bytes.range(of: Data(plain.utf8)) == nil, "\(plain) is readable in the session file")
            }

            // "Relaunch": only the file survives.
            let store = EncryptedFileSessionStore(fileURL: file, key: key)
            let stored = try #require(try await store.load())
            #expect(stored.identity?.subject == "hostile-subject-1")
            var relaunched = try OAuth2SessionConfiguration(stored: stored, store: store)
            let verifier = try #require(IDTokenVerifier(restoring: stored))
            relaunched.identityVerifier = verifier
            let again = OAuth2Session(configuration: relaunched)
            #expect(await again.restore().isAuthenticated)
            #expect(again.identity?.idToken == first.idToken)
            try await again.refresh()
            #expect(again.identity?.subject == "hostile-subject-1" && again.identity?.idToken != first.idToken)
            #expect(provider.counters.discovery == 1 && provider.counters.keySet == 1, "the stored documents were used")
            #expect(try await store.load()?.identity?.idToken == again.identity?.idToken)
        } cleanup: {
            await listener.stop()
            await provider.stop()
            directory.remove()
        }
    }

    @Test func aRestoredSessionStillEndsWhenTheSubjectChanges() async throws {
        let store = InMemorySessionStore()
        try await withHarness(store: store) { harness in
            try await harness.signIn()
            let stored = try #require(store.current)
            harness.provider.behave { $0.refresh = HostileTokenRecipe { $0["sub"] = .string("somebody-else") } }
            var configuration = harness.session.configuration
            let verifier = try #require(IDTokenVerifier(restoring: stored, clientID: harness.provider.clientID))
            configuration.identityVerifier = verifier
            let relaunched = OAuth2Session(configuration: configuration)
            #expect(await relaunched.restore().isAuthenticated)
            await #expect(throws: OAuth2Error.self) { try await relaunched.refresh() }
            #expect(!relaunched.isAuthenticated && store.current == nil)
        }
    }
}
