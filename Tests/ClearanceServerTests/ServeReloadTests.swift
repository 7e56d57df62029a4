import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve` reloads on SIGHUP, as built and run: a real process, a real signal, the
/// configuration file rewritten between them. Apps are added, removed and get a new secret;
/// open connections of an app whose key did not change stay; a broken file is refused with a
/// log line and the hub keeps the last good configuration; the TLS certificate is read again.
@Suite("clearance serve: reload on SIGHUP", .timeLimit(.minutes(3)))
struct ServeReloadTests {
    static let otherApp = HubAppConfiguration(id: "200002", key: "other-key", secret: "other-secret")
    static let rotatedSecret = "rotated-test-secret"

    /// Writes `apps` (and `limits`) as the configuration file at `url`.
    static func write(_ url: URL, port: Int, apps: [HubAppConfiguration], limits: HubLimits = TestHub.limits()) throws {
        let configuration = HubConfiguration(host: "127.0.0.1", port: port, apps: apps, limits: limits)
        try JSONEncoder().encode(configuration).write(to: url, options: .atomic)
    }

    /// Sends SIGHUP and returns the line the hub printed about it (`reloaded …` or `reload refused: …`).
    static func hangUp(_ serve: ServeProcess) async throws -> String {
        try await hangUp(process: serve.process)
    }

    /// Sends SIGHUP to a `clearance serve` process and returns the line it printed about it.
    static func hangUp(process: ChildProcess) async throws -> String {
        func reloadLines() -> [Substring] {
            process.stdout.split(separator: "\n").filter { $0.hasPrefix("reloaded ") || $0.hasPrefix("reload refused: ") }
        }
        let before = reloadLines().count
        kill(process.pid, SIGHUP)
        do {
            try await eventually("a reload line", timeout: .seconds(20)) { reloadLines().count > before }
        } catch {
            throw ChildProcess.Failure("no reload line; stdout: \(process.stdout.suffix(2_000)) stderr: \(process.stderr.suffix(2_000))")
        }
        return String(reloadLines()[before])
    }

    @Test func sighupAddsAnAppRotatesASecretKeepsConnectionsAndSurvivesABrokenFile() async throws {
        let port = try LoopbackPort.free()
        let file = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits())
        defer { try? FileManager.default.removeItem(at: file) }
        let serve = try await ServeProcess.start(configuration: file, port: port, development: false)
        try await serve.killed {
            let kept = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(port)/app/\(TestHub.key)?protocol=7")!)
            let established = try await kept.next(event: "pusher:connection_established")
            let socketID = try #require(established.dataObject["socket_id"] as? String)
            #expect(try await serve.subscribeAndReceive(kept, channel: "news", event: "before", data: "1"))

            // The test app gets a new secret; another app is added.
            var rotated = TestHub.configuration().apps[0]
            rotated.secret = Self.rotatedSecret
            try Self.write(file, port: port, apps: [rotated, Self.otherApp])
            let applied = try await Self.hangUp(serve)
            #expect(applied.contains("added=200002") && applied.contains("updated=\(TestHub.appID)") && applied.contains("closed=0"), "\(applied)")

            // Old signatures are refused, new ones accepted; the open connection stays and receives.
            let old = try await serve.http.signed("POST", TestHub.restSigner.eventsPath, body: #"{"name":"e","channels":["news"],"data":"x"}"#)
            #expect(old.status == 401, "\(old.status) \(old.body)")
            let newSigner = try RESTRequestSigner(appID: TestHub.appID, key: TestHub.key, secret: Self.rotatedSecret)
            let new = try await serve.http.signed(
                "POST", newSigner.eventsPath, body: #"{"name":"after","channels":["news"],"data":"2"}"#, signer: newSigner)
            #expect(new.status == 200, "\(new.status) \(new.body)")
            #expect(try await kept.next(event: "after").rawData as? String == "2")

            // On the kept connection, a private channel signed with the old secret is refused, with the new one accepted.
            let oldAuth = try TestHub.signer.authorizeChannel(socketID: socketID, channelName: "private-a").auth
            kept.send(#"{"event":"pusher:subscribe","data":{"channel":"private-a","auth":"\#(oldAuth)"}}"#)
            _ = try await kept.next(event: "pusher:subscription_error")
            let newAuth = try ChannelAuthSigner(key: TestHub.key, secret: Self.rotatedSecret).authorizeChannel(socketID: socketID, channelName: "private-b").auth
            kept.send(#"{"event":"pusher:subscribe","data":{"channel":"private-b","auth":"\#(newAuth)"}}"#)
            _ = try await kept.next(event: "pusher_internal:subscription_succeeded")

            // The new app serves clients and its HTTP API.
            let other = try await serve.connectedClient(key: Self.otherApp.key)
            let otherSigner = try RESTRequestSigner(appID: Self.otherApp.id, key: Self.otherApp.key, secret: Self.otherApp.secret)
            other.send(#"{"event":"pusher:subscribe","data":{"channel":"other-news"}}"#)
            _ = try await other.next(event: "pusher_internal:subscription_succeeded")
            let toOther = try await serve.http.signed(
                "POST", otherSigner.eventsPath, body: #"{"name":"hello","channels":["other-news"],"data":"3"}"#, signer: otherSigner)
            #expect(toOther.status == 200, "\(toOther.body)")
            #expect(try await other.next(event: "hello").rawData as? String == "3")

            // A broken file is refused, with a log line; everything keeps working as before.
            try Data(#"{"apps": [{"id": "1234", "#.utf8).write(to: file, options: .atomic)
            let refused = try await Self.hangUp(serve)
            #expect(refused.hasPrefix("reload refused: ") && refused.contains("not valid JSON"), "\(refused)")
            // Standard error is read apart from standard output: the log line may come a moment later.
            try await eventually("the refusal logged") { serve.process.stderr.contains("hub.reload.refused") }
            let stillNew = try await serve.http.signed(
                "POST", newSigner.eventsPath, body: #"{"name":"still","channels":["news"],"data":"4"}"#, signer: newSigner)
            #expect(stillNew.status == 200, "\(stillNew.body)")
            #expect(try await kept.next(event: "still").rawData as? String == "4")

            // A file that parses but does not validate (two apps with one key) is refused too.
            var clash = Self.otherApp
            clash.key = TestHub.key
            try Self.write(file, port: port, apps: [rotated, clash])
            let invalid = try await Self.hangUp(serve)
            #expect(invalid.hasPrefix("reload refused: ") && invalid.contains("Two apps have the key \(TestHub.key)"), "\(invalid)")
            _ = try await serve.connectedClient(key: Self.otherApp.key)

            // Removing the other app closes its connections with 4001; the test app's stay.
            try Self.write(file, port: port, apps: [rotated])
            let removed = try await Self.hangUp(serve)
            #expect(removed.contains("removed=200002"), "\(removed)")
            #expect(try await other.closeCode() == 4001)
            let afterRemoval = try await serve.http.signed(
                "POST", newSigner.eventsPath, body: #"{"name":"last","channels":["news"],"data":"5"}"#, signer: newSigner)
            #expect(afterRemoval.status == 200)
            #expect(try await kept.next(event: "last").rawData as? String == "5")
            let gone = try await serve.http.signed(
                "POST", otherSigner.eventsPath, body: #"{"name":"x","channels":["other-news"],"data":"6"}"#, signer: otherSigner)
            #expect(gone.status == 404)
            #expect(serve.process.isRunning)
        }
    }

    @Test func sighupPresentsANewCertificateToNewConnectionsAndKeepsTheOldWhenTheNewCannotBeUsed() async throws {
        let first = try TestCertificateAuthority()
        let second = try TestCertificateAuthority()
        defer { first.remove(); second.remove() }
        let directory = first.directory.appendingPathComponent("live", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("hub.pem")
        let key = directory.appendingPathComponent("hub.key")
        func install(_ authority: TestCertificateAuthority) throws {
            try Data(contentsOf: authority.certificateFile).write(to: certificate, options: .atomic)
            try Data(contentsOf: authority.keyFile).write(to: key, options: .atomic)
        }
        try install(first)
        let port = try LoopbackPort.free()
        let file = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits())
        defer { try? FileManager.default.removeItem(at: file) }
        let serve = try await ServeProcess.start(
            configuration: file, port: port, development: false, arguments: ["--tls-certificate", certificate.path, "--tls-key", key.path])
        try await serve.killed {
            let before = try await Self.connects(port: port, trusting: first)
            #expect(before.connected)

            try install(second)
            let applied = try await Self.hangUp(serve)
            #expect(applied.contains("certificate=reloaded"), "\(applied)")
            #expect(try await Self.connectsThenLeaves(port: port, trusting: second))
            #expect(try await !Self.connectsThenLeaves(port: port, trusting: first))
            // The connection made with the first certificate is still open.
            #expect(await before.client.state.isConnected)
            await before.client.disconnect()

            // A key that is not the certificate's: refused, the second certificate stays.
            try Data(contentsOf: first.keyFile).write(to: key, options: .atomic)
            let refused = try await Self.hangUp(serve)
            #expect(refused.hasPrefix("reload refused: ") && refused.contains("is not the private key of the certificate"), "\(refused)")
            #expect(try await Self.connectsThenLeaves(port: port, trusting: second))
        }
    }

    /// Whether a ``ChannelClient`` that trusts `authority` connects over `wss://`; the client
    /// disconnects either way. (A client left connected reconnects to the stopped hub at the
    /// tests' pace for the rest of the run, and each `wss://` attempt reads the system's trust
    /// roots again: it took a tenth of the suite's CPU.)
    static func connectsThenLeaves(port: Int, trusting authority: TestCertificateAuthority) async throws -> Bool {
        let (connected, client) = try await connects(port: port, trusting: authority)
        await client.disconnect()
        return connected
    }

    /// Whether a ``ChannelClient`` that trusts only `authority` connects over `wss://` (the
    /// client is returned connected, or disconnected).
    static func connects(port: Int, trusting authority: TestCertificateAuthority) async throws -> (connected: Bool, client: ChannelClient) {
        let client = ChannelClient(key: TestHub.key, options: TestHub.tlsOptions(port, trusting: authority.caPEM))
        let states = client.states
        await client.connect()
        let state = try await first(states, timeout: .seconds(20)) { $0.isConnected || $0 == .unavailable || $0.isTerminal }
        if !state.isConnected { await client.disconnect() }
        return (state.isConnected, client)
    }
}
