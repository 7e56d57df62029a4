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
        try await withCleanup {
            let listener = try await LoopbackRedirectListener.start()
            try await withCleanup {
                let directory = try TemporaryDirectory()
                try await withCleanup {
                    try await Self.relaunch(provider: provider, listener: listener, file: directory.file("session.json"))
                } cleanup: {
                    directory.remove()
                }
            } cleanup: {
                await listener.stop()
            }
        } cleanup: {
            await provider.stop()
        }
    }

    private static func relaunch(provider: HostileOpenIDProvider, listener: LoopbackRedirectListener, file: URL) async throws {
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
        let verifier = try #require(try IDTokenVerifier(restoring: stored))
        relaunched.identityVerifier = verifier
        let again = OAuth2Session(configuration: relaunched)
        #expect(await again.restore().isAuthenticated)
        #expect(again.identity?.idToken == first.idToken)
        try await again.refresh()
        #expect(again.identity?.subject == "hostile-subject-1" && again.identity?.idToken != first.idToken)
        #expect(provider.counters.discovery == 1 && provider.counters.keySet == 1, "the stored documents were used")
        #expect(try await store.load()?.identity?.idToken == again.identity?.idToken)
    }

    @Test func aRestoredSessionStillEndsWhenTheSubjectChanges() async throws {
        let store = InMemorySessionStore()
        try await withHarness(store: store) { harness in
            try await harness.signIn()
            let stored = try #require(store.current)
            harness.provider.behave { $0.refresh = HostileTokenRecipe { $0["sub"] = .string("somebody-else") } }
            var configuration = harness.session.configuration
            let verifier = try #require(try IDTokenVerifier(restoring: stored, clientID: harness.provider.clientID))
            configuration.identityVerifier = verifier
            let relaunched = OAuth2Session(configuration: configuration)
            #expect(await relaunched.restore().isAuthenticated)
            do throws(OAuth2Error) {
                try await relaunched.refresh()
                Issue.record("a refresh with another subject was accepted")
            } catch {
                #expect(error.code == .identityRefused)
                #expect((error.identityError as? OpenIDError)?.code == .subjectChanged)
            }
            #expect(!relaunched.isAuthenticated && store.current == nil)
        }
    }

    @Test("a session stored for another issuer lends a provider neither its key set nor its refetch time")
    func anotherIssuersStoredDocumentsAreIgnored() async throws {
        let store = InMemorySessionStore()
        // Issuer A publishes its RSA key as rsa-1; the store ends up holding A's session and key set.
        try await withHarness(behaviour { $0.publishedKeys = [.init(.rsa)] }, store: store) { a in
            try await a.signIn()
            let storedByA = try #require(store.current?.identity?.provider)
            #expect(storedByA["jwks"] != nil && storedByA["issuer"] == .string(a.provider.issuer.absoluteString))

            // Issuer B publishes another key under the same kid.
            let b = behaviour {
                $0.publishedKeys = [.init(.rotatedRSA, keyID: "rsa-1")]
                $0.signIn = HostileTokenRecipe(signature: .key(.rotatedRSA), keyID: .named("rsa-1"))
            }
            try await withHarness(b, store: store) { b in
                // B's provider is handed A's documents as they were stored: it takes none of them.
                let lazyB = try OpenIDProvider(issuer: b.provider.issuer)
                lazyB.restore(.object((storedByA.objectValue ?? [:]).merging(["jwks_unknown_key_refetch_at": .number(String(Date().timeIntervalSince1970))]) { $1 }))
                #expect(lazyB.cachedMetadata == nil && lazyB.storedState == .object(["issuer": .string(b.provider.issuer.absoluteString)]))
                // B's session restores A's session from the store first, then signs in at B:
                // verified with B's own key, fetched from B.
                try await b.signIn()
                #expect(b.session.identity?.issuer == b.provider.issuer.absoluteString)
                #expect(b.provider.counters.keySet == 1)
            }
        }
    }
}
