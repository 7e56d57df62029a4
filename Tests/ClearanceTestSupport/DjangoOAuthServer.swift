import ClearanceHTTP
import Foundation
import HTTPTypes
import Testing

/// The django-oauth-toolkit 3.4.1 server started by `Tests/Interop/django_oauth/serve.py`
/// (pinned in Tests/Interop/requirements.txt, installed into .venv by scripts/python-env): a
/// fresh sqlite database, a seeded user and applications, and, with ``Options/oidc``, OpenID
/// Connect with RS256 keys it keeps in its directory.
///
/// A missing interpreter or Django is a failure with a clear message, never a skip.
package final class DjangoOAuthServer: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    /// A seeded application.
    package struct Client: Sendable {
        package let id: String
        package let secret: String?
        package init(id: String, secret: String?) {
            self.id = id
            self.secret = secret
        }
    }

    /// What the introspection endpoint said about a token.
    package struct Introspection: Sendable {
        package let active: Bool
        package let scope: String?
        package let clientID: String?
        package let username: String?
    }

    /// The OpenID Connect side, with ``Options/oidc``.
    package struct OpenID: Sendable {
        /// The issuer (`<url>/o`).
        package let issuer: URL
        /// The `kid` of the key signing ID tokens now.
        package let activeKeyID: String
        /// The `kid`s of the inactive keys still published.
        package let inactiveKeyIDs: [String]
    }

    /// How to start the server.
    package struct Options: Sendable {
        /// OpenID Connect on (`OIDC_ENABLED`, `OIDC_RSA_PRIVATE_KEY`, RP-initiated logout).
        package var oidc = false
        /// Make a new active key first, the old one inactive (`OIDC_RSA_PRIVATE_KEYS_INACTIVE`).
        package var rotateOIDCKey = false
        /// Keep the database and the seeded secrets of the run before (a restart).
        package var reuseDatabase = false
        /// The port; nil: a free one.
        package var port: Int?

        package init(oidc: Bool = false) { self.oidc = oidc }
    }

    package let url: String
    package let port: Int
    package let password: String
    package let clients: [String: Client]
    package let introspectionToken: String
    /// The `sub` of alice's ID tokens (her primary key).
    package let aliceSubject: String?
    package let openID: OpenID?
    private let process: ChildProcess
    private let work: URL
    private let ownsWork: Bool

    private init(
        url: String, port: Int, password: String, clients: [String: Client], introspectionToken: String, aliceSubject: String?,
        openID: OpenID?, process: ChildProcess, work: URL, ownsWork: Bool
    ) {
        self.url = url
        self.port = port
        self.password = password
        self.clients = clients
        self.introspectionToken = introspectionToken
        self.aliceSubject = aliceSubject
        self.openID = openID
        self.process = process
        self.work = work
        self.ownsWork = ownsWork
    }

    // MARK: Suite scope

    /// The server of the running suite, or why it could not start.
    @TaskLocal package static var current: Result<DjangoOAuthServer, Failure>?

    /// Starts one server (with `options`) for the suite, stops it when the suite ends.
    package static func trait(_ options: Options = Options()) -> ServerTrait { ServerTrait(options: options) }

    package struct ServerTrait: SuiteTrait, TestScoping {
        let options: Options
        package var isRecursive: Bool { false }

        package func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
            let started: Result<DjangoOAuthServer, Failure>
            do {
                started = .success(try await DjangoOAuthServer.start(options))
            } catch let failure as Failure {
                started = .failure(failure)
            } catch {
                started = .failure(Failure(description: "\(error)"))
            }
            do {
                try await DjangoOAuthServer.$current.withValue(started) { try await function() }
            } catch {
                if case .success(let server) = started { await server.stop() }
                throw error
            }
            if case .success(let server) = started { await server.stop() }
        }
    }

    /// The suite's server; throws (failing the test) with the reason it is not there.
    package static func require() throws -> DjangoOAuthServer {
        guard let current else {
            throw Failure(description: "the test must run inside DjangoOAuthServer.trait")
        }
        return try current.get()
    }

    // MARK: Process

    /// Starts a server in a new directory (removed by ``stop()``).
    package static func start(_ options: Options = Options(), timeout: Duration = .seconds(45)) async throws -> DjangoOAuthServer {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-django-oauth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return try await start(options, in: work, ownsWork: true, timeout: timeout)
    }

    /// Stops this server with SIGTERM and starts it again on the same port, database and keys
    /// (tokens stay valid), with `rotatingOIDCKey` making a new active key first.
    package func restart(rotatingOIDCKey: Bool = false, timeout: Duration = .seconds(45)) async throws -> DjangoOAuthServer {
        process.closeInput()
        await process.stop(.terminate(grace: .seconds(5)))
        var options = Options(oidc: openID != nil)
        options.rotateOIDCKey = rotatingOIDCKey
        options.reuseDatabase = true
        options.port = port
        return try await Self.start(options, in: work, ownsWork: ownsWork, timeout: timeout)
    }

    private static func start(_ options: Options, in work: URL, ownsWork: Bool, timeout: Duration) async throws -> DjangoOAuthServer {
        var arguments: [String] = []
        if options.oidc { arguments.append("--oidc") }
        if options.rotateOIDCKey { arguments.append("--rotate-oidc-key") }
        if options.reuseDatabase { arguments.append("--reuse-database") }
        if let port = options.port { arguments += ["--port", String(port)] }
        // The server exits when its stdin closes: if this test process dies, so does the server.
        let process: ChildProcess
        do {
            process = try PythonPeer.start("django_oauth/serve.py", arguments, environment: ["CLEARANCE_DJANGO_DB_DIR": work.path, "PYTHONWARNINGS": "ignore"])
        } catch {
            if ownsWork { try? FileManager.default.removeItem(at: work) }
            throw Failure(description: "\(error)")
        }
        func fail(_ reason: String) async -> Failure {
            await process.stop()
            if ownsWork { try? FileManager.default.removeItem(at: work) }
            let hint = process.stderr.contains("No module named") ? " \(PythonPeer.installHint)" : ""
            return Failure(description: "The django-oauth-toolkit server (Tests/Interop/django_oauth/serve.py) \(reason).\(hint) stderr: \(process.stderr.suffix(3_000))")
        }
        guard let line = await process.line(timeout: timeout, where: { _ in true }) else {
            throw await fail(process.isRunning ? "did not print its ready line within \(timeout)" : "exited before it was ready")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              object["ready"] as? Bool == true, let url = object["url"] as? String, let port = URL(string: url)?.port,
              let password = (object["users"] as? [String: String])?["alice"],
              let clientObjects = object["clients"] as? [String: [String: Any]],
              let introspectionToken = object["introspection_token"] as? String
        else {
            throw await fail("printed an unexpected ready line: \(line.prefix(200))")
        }
        var clients: [String: Client] = [:]
        for (name, client) in clientObjects {
            guard let id = client["client_id"] as? String else { continue }
            clients[name] = Client(id: id, secret: client["client_secret"] as? String)
        }
        var openID: OpenID?
        if let oidc = object["oidc"] as? [String: Any] {
            guard let issuer = (oidc["issuer"] as? String).flatMap(URL.init(string:)), let active = oidc["active_kid"] as? String else {
                throw await fail("printed an unexpected oidc member: \(line.prefix(400))")
            }
            openID = OpenID(issuer: issuer, activeKeyID: active, inactiveKeyIDs: oidc["inactive_kids"] as? [String] ?? [])
        }
        return DjangoOAuthServer(
            url: url, port: port, password: password, clients: clients, introspectionToken: introspectionToken,
            aliceSubject: (object["subjects"] as? [String: String])?["alice"], openID: openID, process: process, work: work, ownsWork: ownsWork)
    }

    /// Stops the server (SIGTERM) and removes its directory.
    package func stop() async {
        process.closeInput()
        await process.stop(.terminate(grace: .seconds(5)))
        if ownsWork { try? FileManager.default.removeItem(at: work) }
    }

    // MARK: Clients

    package var tokenURL: URL { URL(string: url + "/o/token/")! }

    /// Asks the introspection endpoint (RFC 7662) about `token`, as the seeded resource server.
    package func introspect(_ token: String) async throws -> Introspection {
        var request = HTTPRequest(method: .post, url: URL(string: url + "/o/introspect/")!)
        request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        request.headerFields[.authorization] = "Bearer \(introspectionToken)"
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let body = "token=\(token.addingPercentEncoding(withAllowedCharacters: allowed) ?? token)"
        let (response, data) = try await AsyncHTTPClientHTTPTransport.shared.send(request, body: Data(body.utf8))
        guard response.status.code == 200, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure(description: "introspection answered HTTP \(response.status.code): \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        return Introspection(
            active: object["active"] as? Bool ?? false, scope: object["scope"] as? String,
            clientID: object["client_id"] as? String, username: object["username"] as? String)
    }

    /// Runs the scripted browser (`Tests/Interop/django_oauth/browser.py`, `requests`) with a
    /// 30 s limit; returns its standard output; throws with its output when it fails.
    @discardableResult
    package func browser(_ arguments: [String], timeout: Duration = .seconds(30)) async throws -> String {
        let run = try await PythonPeer.run("django_oauth/browser.py", arguments, timeout: timeout)
        if Task.isCancelled { throw CancellationError() }
        guard run.status == 0 else {
            throw Failure(description: "browser.py \(arguments.first ?? "") exited with \(run.status); stdout: \(run.stdout.suffix(1_000)) stderr: \(run.stderr.suffix(2_000))")
        }
        return run.stdout
    }
}
