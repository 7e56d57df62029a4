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
        try await serve.killed {
            #expect(serve.process.stdout.contains("ready ws=wss://127.0.0.1:\(port)/"), "\(serve.process.stdout)")
        }
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
            (["CLEARANCE_LIMITS_ACTIVITY_TIMEOUT": "ten"],
             "The environment variable CLEARANCE_LIMITS_ACTIVITY_TIMEOUT is not usable: it must hold a whole number"),
            (["CLEARANCE_LIMITS_ACTIVITY_TIMEOUT": "0"], "The limit activityTimeout is out of range (allowed: 1 to 3600)"),
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

    /// A limit's variable wins over the file: the hub announces the activity timeout it was given.
    @Test func aLimitsVariableWinsOverTheFile() async throws {
        try await ServeProcess.with(limits: TestHub.limits { $0.connections.activityTimeout = 60 }, environment: ["CLEARANCE_LIMITS_ACTIVITY_TIMEOUT": "42"]) { serve in
            let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(serve.port)/app/\(TestHub.key)?protocol=7")!)
            let frame = try await client.next(event: "pusher:connection_established")
            #expect(frame.dataObject["activity_timeout"] as? Int == 42)
            await client.disconnect()
        }
    }

    /// A file that sets limits by their flat names still loads them, with one warning naming
    /// each one's place in its group; a grouped file (as ServeProcess writes them) gets none.
    @Test func flatLimitNamesLoadWithADeprecationWarningNamingTheirNewPlace() async throws {
        let port = try LoopbackPort.free()
        let configuration = try ServeProcess.writeConfiguration(port: port, limits: TestHub.limits())
        defer { try? FileManager.default.removeItem(at: configuration) }
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: configuration)) as? [String: Any])
        object["limits"] = ["activityTimeout": 42, "maxHTTPBodyBytes": 4_096]
        let flat = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-flat-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: object).write(to: flat)
        defer { try? FileManager.default.removeItem(at: flat) }
        let serve = try await ServeProcess.start(configuration: flat, port: port)
        try await serve.killed {
            let warnings = serve.process.stderr.split(separator: "\n").filter { $0.contains("deprecated") }
            #expect(warnings.count == 1, "\(serve.process.stderr)")
            #expect(warnings.first?.contains("write limits.connections.activityTimeout for limits.activityTimeout, "
                + "limits.httpAPI.maxHTTPBodyBytes for limits.maxHTTPBodyBytes") == true, "\(warnings)")
            let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(port)/app/\(TestHub.key)?protocol=7")!)
            let frame = try await client.next(event: "pusher:connection_established")
            #expect(frame.dataObject["activity_timeout"] as? Int == 42)
            await client.disconnect()
        }
        let grouped = try await ServeProcess.start(configuration: configuration, port: port)
        await grouped.stop(.kill)
        #expect(!grouped.process.stderr.contains("deprecated"), "\(grouped.process.stderr)")
    }

    /// `serve --help` lists every limit with its group, variable, default, range and line of doc,
    /// as the one declaration of them says (HubLimits.settings, also behind Limits.md's table and
    /// the operator's guide's).
    @Test func helpListsEveryLimitWithItsDefaultAndRange() async throws {
        let help = try await ClearanceExecutable.run(["serve", "--help"])
        #expect(help.status == 0)
        // The help is wrapped to the terminal's width: compare with single spaces.
        func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let text = flat(help.stdout)
        let defaults = HubLimits()
        #expect(HubLimits.settings.count > 30)
        for setting in HubLimits.settings {
            let line = flat("\(setting.name) (\(setting.environmentVariable)): \(setting.tableDefault(defaults)) (\(setting.tableRange)). \(setting.summary).")
            #expect(text.contains(line), "--help does not say \(line)")
        }
        for group in HubLimitsSetting.Group.allCases {
            #expect(text.contains(group.title + ":"), "--help has no group \(group.title)")
        }
    }
}
