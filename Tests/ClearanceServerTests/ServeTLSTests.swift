import ClearanceChannels
import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve --tls-certificate --tls-key` as built: `wss://` and `https://` on the hub's
/// one port, with a certificate authority the test makes. The official Python library triggers
/// over `https://` (trusting the test's CA), a ``ChannelClient``
/// subscribes over `wss://` (trusting it through ``ChannelClientOptions/additionalTrustRootsPEM``);
/// files that cannot be used stop the hub at start, named.
@Suite("clearance serve: TLS", .timeLimit(.minutes(3)))
struct ServeTLSTests {
    @Test func thePythonLibraryTriggersOverHTTPSAndAChannelClientSubscribesOverWSS() async throws {
        let authority = try TestCertificateAuthority()
        defer { authority.remove() }
        let port = try LoopbackPort.free()
        let configuration = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits())
        defer { try? FileManager.default.removeItem(at: configuration) }
        let serve = try await ServeProcess.start(
            configuration: configuration, port: port, development: false,
            arguments: ["--tls-certificate", authority.certificateFile.path, "--tls-key", authority.keyFile.path])
        try await serve.killed {
            let stdout = serve.process.stdout
            #expect(stdout.contains("ready ws=wss://127.0.0.1:\(port)/app/\(TestHub.key)") && stdout.contains("http=https://127.0.0.1:\(port)"), "\(stdout)")

            // By name: swift-nio-ssl checks no certificate for an IP address (ChannelClientOptions refuses it).
            let client = ChannelClient(key: TestHub.key, options: TestHub.tlsOptions(port, trusting: authority.caPEM))
            let states = client.states
            await client.connect()
            let state = try await first(states, timeout: .seconds(20)) { $0.isConnected || $0.isTerminal }
            #expect(state.isConnected, "\(state)")
            let channel = await client.subscribe("news")
            try await channel.subscribed()
            let stream = channel.bind(event: "over-tls")
            let received = Task { try await first(stream, timeout: .seconds(20)) { _ in true } }

            let trigger = ["127.0.0.1", String(port), TestHub.appID, TestHub.key, TestHub.secret, TestHub.masterKey, #"news=over-tls={"via":"https"}"#]
            let run = try await PythonPeer.run("channels_trigger.py", trigger, environment: [
                "CLEARANCE_TRIGGER_SSL": "1", "CLEARANCE_TRIGGER_CA": authority.caFile.path,
            ])
            #expect(run.status == 0, "python: \(run.stdout) \(run.stderr)")
            let event = try await received.value
            let data = try #require(event.data)
            #expect(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: String] == ["via": "https"])
            await client.disconnect()

            // Without the test's CA the library refuses the hub's certificate: TLS is checked, not just on.
            let untrusted = try await PythonPeer.run("channels_trigger.py", trigger, environment: ["CLEARANCE_TRIGGER_SSL": "1"])
            #expect(untrusted.status != 0)
            #expect(untrusted.stderr.contains("CERTIFICATE_VERIFY_FAILED"), "\(untrusted.stderr.suffix(500))")
            // Plain HTTP to the TLS port is not served.
            let plain = try await PythonPeer.run("channels_trigger.py", trigger)
            #expect(plain.status != 0)
        }
    }

    @Test func aChannelClientWithoutTheCANeverConnects() async throws {
        let authority = try TestCertificateAuthority()
        defer { authority.remove() }
        let serve = try ClearanceExecutable.start([
            "serve", "--port", "0", "--log-level", "warning",
            "--tls-certificate", authority.certificateFile.path, "--tls-key", authority.keyFile.path,
        ])
        try await withCleanup {
            let ready = try #require(await serve.line(timeout: .seconds(30)) { $0.hasPrefix("ready ") }, "no ready line: \(serve.stderr)")
            let address = try #require(ready.split(separator: " ").first { $0.hasPrefix("ws=wss://127.0.0.1:") }, "\(ready)")
            let port = try #require(Int(address.dropFirst("ws=wss://127.0.0.1:".count).prefix { $0.isNumber }))
            let client = ChannelClient(key: "clearance-key", options: TestHub.tlsOptions(port, trusting: nil))
            let states = client.states
            await client.connect()
            // The handshake fails (the hub's certificate is not trusted): the connection is
            // unavailable, never established.
            let state = try await first(states, timeout: .seconds(20)) { $0 == .unavailable || $0.isConnected }
            #expect(state == .unavailable)
            await client.disconnect()
        } cleanup: { await serve.stop(.terminate(grace: .seconds(10))) }
    }

    @Test func aChannelClientRefusesTLSToAnIPAddressClearly() async throws {
        var options = TestHub.options(6001)
        options.useTLS = true
        let client = ChannelClient(key: TestHub.key, options: options)
        let states = client.states
        await client.connect()
        let state = try await first(states, timeout: .seconds(10)) { $0.isTerminal }
        guard case let .failed(error) = state else { Issue.record("not failed: \(state)"); return }
        #expect(error.message.contains("TLS to the IP address 127.0.0.1 cannot work"), "\(error.message)")
        await client.disconnect()
    }

    @Test func aCertificateOrKeyThatCannotBeUsedStopsTheHubAtStartNamingTheFile() async throws {
        let authority = try TestCertificateAuthority()
        defer { authority.remove() }
        let garbage = authority.directory.appendingPathComponent("garbage.pem")
        try Data("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n".utf8).write(to: garbage)
        let missing = authority.directory.appendingPathComponent("missing.pem").path
        let certificate = authority.certificateFile.path
        let key = authority.keyFile.path
        let cases: [(arguments: [String], expected: String)] = [
            (["--tls-certificate", missing, "--tls-key", key], "Cannot read the TLS certificate file \(missing)"),
            (["--tls-certificate", certificate, "--tls-key", missing], "Cannot read the TLS key file \(missing)"),
            (["--tls-certificate", garbage.path, "--tls-key", key], "The TLS certificate file \(garbage.path) holds no PEM certificate"),
            (["--tls-certificate", certificate, "--tls-key", garbage.path], "The TLS key file \(garbage.path) holds no usable PEM private key"),
            (["--tls-certificate", certificate, "--tls-key", certificate], "The TLS key file \(certificate) holds no usable PEM private key"),
            (["--tls-certificate", certificate, "--tls-key", authority.otherKeyFile.path],
             "The TLS key \(authority.otherKeyFile.path) is not the private key of the certificate \(certificate)"),
            (["--tls-certificate", certificate], "--tls-certificate (CLEARANCE_TLS_CERTIFICATE) needs --tls-key"),
            (["--tls-key", key], "--tls-key (CLEARANCE_TLS_KEY) needs --tls-certificate"),
        ]
        for (arguments, expected) in cases {
            let output = try await ClearanceExecutable.run(["serve", "--port", "0"] + arguments)
            #expect(output.status != 0, "\(arguments) started")
            #expect(output.stderr.contains(expected), "\(arguments): \(output.stderr)")
            #expect(!output.stdout.contains("ready "))
            #expect(!output.stderr.contains("PRIVATE KEY"), "a key's contents were printed")
        }
        // The same from the environment.
        let output = try await ClearanceExecutable.run(["serve", "--port", "0"], environment: [
            "CLEARANCE_TLS_CERTIFICATE": certificate, "CLEARANCE_TLS_KEY": authority.otherKeyFile.path,
        ])
        #expect(output.status != 0 && output.stderr.contains("is not the private key of the certificate \(certificate)"), "\(output.stderr)")
    }
}
