import Clearance
import ClearanceDevelopment
import ClearanceEntitlements
import ClearanceServer
import ClearanceStore
import ClearanceTestSupport
import Crypto
import Foundation
import Testing

/// The development server half: edition passwords, the configuration file, the sha1 option.
@Suite struct DevelopmentPugpigServerTests {
    static let secret = SymmetricKey(data: Data("shared-secret".utf8))

    @Test func hmacEditionPasswordsExpireAndAreBoundToProductAndUser() {
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let scheme = EditionPasswordScheme.hmacSHA256
        let password = scheme.password(product: "issue-1", userID: "alice", expiry: now.addingTimeInterval(60), secret: Self.secret)
        #expect(password.hasPrefix("v1.1900000060."))
        #expect(scheme.verify(password, product: "issue-1", userID: "alice", now: now, secret: Self.secret))
        #expect(!scheme.verify(password, product: "issue-1", userID: "alice", now: now.addingTimeInterval(61), secret: Self.secret))  // expired
        #expect(!scheme.verify(password, product: "issue-2", userID: "alice", now: now, secret: Self.secret))
        #expect(!scheme.verify(password, product: "issue-1", userID: "bob", now: now, secret: Self.secret))
        #expect(!scheme.verify(password, product: "issue-1", userID: "alice", now: now, secret: SymmetricKey(data: Data("other".utf8))))
        // A later expiry written over the signed one does not verify.
        let stretched = password.replacingOccurrences(of: "1900000060", with: "1999999999")
        #expect(!scheme.verify(stretched, product: "issue-1", userID: "alice", now: now, secret: Self.secret))
        for garbage in ["", "v1", "v1.x.y", "v2.1900000060.00", "v1.1900000060.zz"] {
            #expect(!scheme.verify(garbage, product: "issue-1", userID: "alice", now: now, secret: Self.secret))
        }
    }

    @Test func pugpigsSHA1SchemeMatchesTheReferenceAndNeverExpires() {
        let scheme = EditionPasswordScheme.pugpigSHA1
        // hashlib.sha1(b"issue-1:alice:shared-secret").hexdigest()
        let reference = "b3b33269f96853b490f70bc80b221c0190dea3f3"
        #expect(scheme.password(product: "issue-1", userID: "alice", expiry: Date(), secret: Self.secret) == reference)
        #expect(scheme.verify(reference, product: "issue-1", userID: "alice", now: .distantFuture, secret: Self.secret))
        #expect(scheme.verify(reference.uppercased(), product: "issue-1", userID: "alice", now: Date(), secret: Self.secret))
        #expect(!scheme.verify(reference, product: "issue-2", userID: "alice", now: Date(), secret: Self.secret))
    }

    @Test func theSHA1OptionWorksEndToEnd() async throws {
        try await PugpigFixture.with(settings: DevelopmentPugpigSettings(secret: "shared-secret", passwordScheme: .pugpigSHA1, edgeHeader: false)) { fixture in
            let directory = fixture.directory
            let provider = try await fixture.signedIn(PugpigFixture.alice)
            let credentials = try await provider.credentials(for: "issue-1")
            #expect(credentials.password == "b3b33269f96853b490f70bc80b221c0190dea3f3" && credentials.headers.isEmpty)
            let bytes = try await ContentDownloader(provider: provider).download("issue-1", from: fixture.contentURL("issue-1"), to: directory.file("e"))
            #expect(bytes == Int64(PugpigFixture.edition.count))
        }
    }

    @Test func theConfigurationFileCarriesEntitlementsAndSettings() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.file("content"), withIntermediateDirectories: true)
        let json = """
            {"apps": [{"id": "1", "key": "k", "secret": "s"}],
             "users": [{"token": "t1", "id": "all", "entitlements": "all"}, {"token": "t2", "id": "list", "entitlements": ["issue-1"]},
                       {"token": "t3", "id": "lapsed", "entitlements": "lapsed"}, {"token": "t4", "id": "suspended", "entitlements": "suspended"},
                       {"token": "t5", "id": "none"}],
             "pugpig": {"secret": "s3", "passwordScheme": "pugpig-sha1", "tokenLifetime": 5, "contentDirectory": "content", "globalAuthPassword": true}}
            """
        try Data(json.utf8).write(to: directory.file("config.json"))
        let hub = try DevelopmentHub.load(contentsOf: directory.file("config.json"))
        #expect(hub.users.map(\.entitlements) == [.all, .issues(["issue-1"]), .lapsed, .suspended, nil])
        #expect(hub.pugpig.passwordScheme == .pugpigSHA1 && hub.pugpig.tokenLifetime == 5 && hub.pugpig.globalAuthPassword)
        #expect(hub.pugpig.passwordLifetime == 3600 && hub.pugpig.edgeHeader)  // defaults
        #expect(hub.pugpig.contentDirectory == directory.file("content").path)  // relative to the file

        try Data(json.replacingOccurrences(of: #""entitlements": "lapsed""#, with: #""entitlements": "sometimes""#).utf8).write(to: directory.file("bad.json"))
        #expect(throws: HubConfigurationError.self) { try DevelopmentHub.load(contentsOf: directory.file("bad.json")) }
        try Data(json.replacingOccurrences(of: #""tokenLifetime": 5"#, with: #""tokenLifetime": 0"#).utf8).write(to: directory.file("zero.json"))
        #expect(throws: DevelopmentUserError.invalidPugpigSettings(reason: "tokenLifetime must be a positive number of seconds")) {
            try DevelopmentHub.load(contentsOf: directory.file("zero.json"))
        }
        try Data(json.replacingOccurrences(of: #""contentDirectory": "content""#, with: #""contentDirectory": "missing""#).utf8).write(to: directory.file("missing.json"))
        #expect(throws: DevelopmentUserError.self) { try DevelopmentHub.load(contentsOf: directory.file("missing.json")) }
    }

    @Test func tokensSurviveARestartWithTheSameSecretOnly() async throws {
        let settings = DevelopmentPugpigSettings(secret: "restart-secret-restart-secret-32b")
        let first = try await PugpigFixture(settings: settings)
        let store = InMemoryStore<StoredEntitlements>()
        _ = try await first.signedIn(PugpigFixture.bob, store: store)
        await first.stop()
        // Another server with the same secret knows the token; the provider is pointed at it.
        let second = try await PugpigFixture(settings: settings)
        defer { Task { await second.stop() } }
        let moved = PugpigEntitlementProvider(configuration: second.configuration(store: store))
        #expect(try await moved.verify().state == .active)
        let stranger = try await PugpigFixture(settings: DevelopmentPugpigSettings(secret: "another-secret-another-secret-32b"))
        defer { Task { await stranger.stop() } }
        let lost = PugpigEntitlementProvider(configuration: stranger.configuration(store: store))
        #expect(try await lost.verify().state == .unknown)
    }
}
