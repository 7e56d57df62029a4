import ClearanceDevelopment
import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve` configured from `CLEARANCE_…` variables, as a container or a systemd unit
/// runs it: flags win over the environment, which wins over the file, which wins over the
/// defaults; a bad value is an error naming its variable; `--help` names every variable.
@Suite("clearance serve: configuration from the environment", .timeLimit(.minutes(3)))
struct ServeEnvironmentTests {
    @Test func theHubStartsFromEnvironmentVariablesAloneWithTLS() async throws {
        let authority = try TestCertificateAuthority()
        defer { authority.remove() }
        let filePort = try LoopbackPort.free()
        let port = try LoopbackPort.free()
        let configuration = try ServeProcess.writeConfiguration(port: filePort, limits: TestHub.limits())
        defer { try? FileManager.default.removeItem(at: configuration) }
        // No flag at all: the file comes from CLEARANCE_CONFIG, its port is overridden by CLEARANCE_PORT.
        let serve = try ClearanceExecutable.start(["serve"], environment: [
            "CLEARANCE_CONFIG": configuration.path, "CLEARANCE_PORT": String(port), "CLEARANCE_HOST": "127.0.0.1",
            "CLEARANCE_LOG_LEVEL": "warning", "CLEARANCE_APP_ID": "4242",
            "CLEARANCE_TLS_CERTIFICATE": authority.certificateFile.path, "CLEARANCE_TLS_KEY": authority.keyFile.path,
        ])
        try await withCleanup {
            let ready = try #require(await serve.line(timeout: .seconds(30)) { $0.hasPrefix("ready ") }, "no ready line: \(serve.stderr)")
            #expect(ready.contains("ws=wss://127.0.0.1:\(port)/app/\(TestHub.key)") && ready.contains("http=https://127.0.0.1:\(port)"), "\(ready)")
            #expect(serve.stdout.contains("app id=4242"), "\(serve.stdout)")
            #expect(!serve.stdout.contains("(generated)"), "the file's secret was replaced")
            // The hub answers over https:// the app id and the secret the environment and the file gave it.
            let trigger = ["127.0.0.1", String(port), "4242", TestHub.key, TestHub.secret, TestHub.masterKey, #"news=from-env={"ok":true}"#]
            let run = try await PythonPeer.run("channels_trigger.py", trigger, environment: [
                "CLEARANCE_TRIGGER_SSL": "1", "CLEARANCE_TRIGGER_CA": authority.caFile.path,
            ])
            #expect(run.status == 0, "python: \(run.stdout) \(run.stderr)")
            // CLEARANCE_LOG_LEVEL=warning: no info line.
            #expect(!serve.stderr.contains("hub.started"), "\(serve.stderr.prefix(500))")
        } cleanup: { await serve.stop(.terminate(grace: .seconds(10))) }
        #expect(serve.status == 0)
    }

    @Test func aFlagWinsOverItsVariable() async throws {
        let serve = try ClearanceExecutable.start(["serve", "--port", "0", "--key", "from-flag"], environment: [
            "CLEARANCE_PORT": "not used", "CLEARANCE_KEY": "from-environment", "CLEARANCE_LOG_LEVEL": "warning",
        ])
        try await withCleanup {
            let ready = try #require(await serve.line(timeout: .seconds(30)) { $0.hasPrefix("ready ") }, "no ready line: \(serve.stderr)")
            #expect(ready.contains("/app/from-flag?"), "\(ready)")
        } cleanup: { await serve.stop(.terminate(grace: .seconds(10))) }
    }

    @Test func theFilesTLSIsCompletedByAFlag() async throws {
        let authority = try TestCertificateAuthority()
        defer { authority.remove() }
        let port = try LoopbackPort.free()
        // The file names the certificate and a key that is not its own; --tls-key replaces the key alone.
        let tls = #"{"certificate": "\#(authority.certificateFile.path)", "key": "\#(authority.otherKeyFile.path)"}"#
        let configuration = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits(), members: ["tls": tls])
        defer { try? FileManager.default.removeItem(at: configuration) }
        let refused = try await ClearanceExecutable.run(["serve", "--config", configuration.path])
        #expect(refused.status != 0 && refused.stderr.contains("is not the private key of the certificate"), "\(refused.stderr)")
        let serve = try await ServeProcess.start(configuration: configuration, port: port, development: false, arguments: ["--tls-key", authority.keyFile.path])
        try await withCleanup {
            #expect(serve.process.stdout.contains("ready ws=wss://127.0.0.1:\(port)/"), "\(serve.process.stdout)")
        } cleanup: { await serve.stop(.kill) }
    }

    @Test func aBadValueIsAnErrorNamingItsVariable() async throws {
        let cases: [([String: String], String)] = [
            (["CLEARANCE_PORT": "sixty"], "CLEARANCE_PORT is 'sixty': a whole number in 0…65535 is expected"),
            (["CLEARANCE_PORT": "70000"], "CLEARANCE_PORT is '70000': a whole number in 0…65535 is expected"),
            (["CLEARANCE_LOG_LEVEL": "loud"], "CLEARANCE_LOG_LEVEL is 'loud': use trace, debug, info"),
            (["CLEARANCE_CONFIG": "/nonexistent/clearance.json"], "Cannot read the configuration file /nonexistent/clearance.json"),
            (["CLEARANCE_SECRET_FILE": "/nonexistent/secret"], "CLEARANCE_SECRET_FILE: --secret-file: cannot read '/nonexistent/secret'"),
            (["CLEARANCE_APP_SECRET": "s3cr3t-value-long-enough", "CLEARANCE_SECRET_FILE": "/dev/null"],
             "Both CLEARANCE_APP_SECRET and CLEARANCE_SECRET_FILE are set"),
            (["CLEARANCE_TLS_KEY": "/nonexistent/key.pem"], "--tls-key (CLEARANCE_TLS_KEY) needs --tls-certificate"),
        ]
        for (environment, expected) in cases {
            let output = try await ClearanceExecutable.run(["serve"], environment: environment)
            #expect(output.status != 0, "\(environment) started")
            #expect(output.stderr.contains(expected), "\(environment): \(output.stderr)")
            #expect(!output.stderr.contains("s3cr3t"), "a secret was printed")
        }
    }

    @Test func helpNamesTheVariableOfEveryOption() async throws {
        let help = try await ClearanceExecutable.run(["serve", "--help"])
        #expect(help.status == 0)
        let text = help.stdout
        // The secrets keep the names they always had; every other option is CLEARANCE_ and its name.
        let kept = ["--secret": "CLEARANCE_APP_SECRET", "--backplane": "CLEARANCE_BACKPLANE_URL"]
        let options = Set(text.matches(of: /--([a-z][a-z-]+)/).map { "--" + String($0.output.1) }).subtracting(["--help"])
        #expect(options.isSuperset(of: ["--port", "--host", "--config", "--log-level", "--tls-certificate", "--tls-key", "--development"]))
        for option in options {
            let variable = kept[option] ?? "CLEARANCE_" + option.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
            #expect(text.contains(variable), "--help does not name \(variable) (\(option))")
        }
    }

    /// `serve --help` lists every limit with its default and range, as the one declaration of them
    /// says (HubLimits.settings, also behind Limits.md's table).
    @Test func helpListsEveryLimitWithItsDefaultAndRange() async throws {
        let help = try await ClearanceExecutable.run(["serve", "--help"])
        #expect(help.status == 0)
        // The help is wrapped to the terminal's width: compare with single spaces.
        func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let text = flat(help.stdout)
        let defaults = HubLimits()
        #expect(HubLimits.settings.count > 30)
        for setting in HubLimits.settings {
            let line = flat("\(setting.name): \(setting.tableDefault(defaults)) (\(setting.tableRange))")
            #expect(text.contains(line), "--help does not say \(line)")
        }
    }
}
