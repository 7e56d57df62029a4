@testable import ClearanceServerPostgres
import Foundation
import Testing

/// What nodes send each other is sealed with the cluster key, bound to its namespace, its
/// sender and its carrier, numbered, and opened only once.
@Suite("Backplane sealing")
struct BackplaneSealTests {
    private let seal = BackplaneSeal(key: .test, namespace: "clearance_backplane")

    @Test func aSealedBodyOpensOnlyWithTheSameKeyNamespaceNodeAndCarrier() throws {
        let sentAt = Date(timeIntervalSince1970: 1_700_000_000.5)
        let text = seal.seal(#"{"k":"event","c":"private-secret","f":"top secret"}"#, node: "a", sequence: 7, sentAt: sentAt, carrier: .notification)
        #expect(!text.contains("secret"), "ciphertext only")
        let opened = try seal.open(text, node: "a", carrier: .notification)
        #expect(opened == .init(sequence: 7, sentAt: sentAt, body: #"{"k":"event","c":"private-secret","f":"top secret"}"#))

        let otherKey = BackplaneSeal(key: try BackplaneClusterKey(secret: String(repeating: "k", count: 32)), namespace: "clearance_backplane")
        let otherNamespace = BackplaneSeal(key: .test, namespace: "staging")
        #expect(throws: BackplaneSeal.Failure.doesNotOpen) { try otherKey.open(text, node: "a", carrier: .notification) }
        #expect(throws: BackplaneSeal.Failure.doesNotOpen) { try otherNamespace.open(text, node: "a", carrier: .notification) }
        #expect(throws: BackplaneSeal.Failure.doesNotOpen) { try seal.open(text, node: "b", carrier: .notification) }
        #expect(throws: BackplaneSeal.Failure.doesNotOpen) { try seal.open(text, node: "a", carrier: .storedPayload) }
        var tampered = Array(text.utf8)
        tampered[20] = tampered[20] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(throws: BackplaneSeal.Failure.doesNotOpen) { try seal.open(String(decoding: tampered, as: UTF8.self), node: "a", carrier: .notification) }
        for forged in ["", "not base64!", Data(repeating: 0, count: 10).base64EncodedString(), #"{"k":"event"}"#] {
            #expect(throws: BackplaneSeal.Failure.doesNotOpen) { try seal.open(forged, node: "a", carrier: .notification) }
        }
    }

    @Test func aBodyOfTheLongestSizeFitsInANotification() {
        let node = UUID().uuidString.lowercased()
        let body = String(repeating: "x", count: BackplanePayload.bodyLimit(node: node))
        let notification = BackplanePayload.notification(node: node, sealed: seal.seal(body, node: node, sequence: 1, sentAt: .now, carrier: .notification))
        #expect(notification.utf8.count <= BackplanePayload.notifyLimit)
    }

    @Test func aMessageIsAcceptedOnceAndOnlyWhenFresh() {
        var replays = BackplaneReplayGuard(window: 300)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(replays.admit(node: "a", sequence: 1, sentAt: now - 600, now: now) == .stale, "a first message sealed too long ago")
        #expect(replays.admit(node: "a", sequence: 5, sentAt: now, now: now) == nil)
        #expect(replays.admit(node: "a", sequence: 5, sentAt: now, now: now) == .replayed)
        #expect(replays.admit(node: "a", sequence: 4, sentAt: now, now: now + 1) == .replayed)
        #expect(replays.admit(node: "a", sequence: 6, sentAt: now, now: now + 1) == nil)
        #expect(replays.admit(node: "b", sequence: 1, sentAt: now, now: now + 1) == nil, "numbers are per node")
        // After a long silence, an old message is too old and a replay still a replay.
        #expect(replays.admit(node: "a", sequence: 3, sentAt: now, now: now + 1_000) == .stale)
        #expect(replays.admit(node: "a", sequence: 6, sentAt: now + 1_000, now: now + 1_000) == .replayed)
        #expect(replays.admit(node: "a", sequence: 7, sentAt: now + 1_000, now: now + 1_000) == nil)
    }

    @Test func theClusterKeyIsLongEnoughAndNeverShown() throws {
        #expect(throws: PostgresBackplaneError.clusterKeyTooShort(minimum: 32)) { try BackplaneClusterKey(secret: String(repeating: "k", count: 31)) }
        #expect(PostgresBackplaneError.clusterKeyTooShort(minimum: 32).message.contains("openssl rand -base64 48"))
        let key = try BackplaneClusterKey(secret: BackplaneClusterKey.testSecret)
        var dumped = ""
        dump(key, to: &dumped)
        for text in [key.description, String(reflecting: key), dumped, "\(key)"] {
            #expect(!text.contains(BackplaneClusterKey.testSecret), "\(text)")
        }
    }

    @Test func aRemoteDatabaseWithoutTLSIsUnprotected() throws {
        #expect(try PostgresBackplaneConfiguration(url: "postgres://u@db.internal/d", clusterKey: .test).isUnprotectedRemoteDatabase)
        #expect(!(try PostgresBackplaneConfiguration(url: "postgres://u@db.internal/d?sslmode=require", clusterKey: .test).isUnprotectedRemoteDatabase))
        #expect(!(try PostgresBackplaneConfiguration(url: "postgres://u@127.0.0.1/d", clusterKey: .test).isUnprotectedRemoteDatabase))
        #expect(!(try PostgresBackplaneConfiguration(url: "postgres://u@localhost/d", clusterKey: .test).isUnprotectedRemoteDatabase))
    }
}
