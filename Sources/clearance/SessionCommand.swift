import ArgumentParser
import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceOpenID
import Foundation

/// `clearance session show|refresh|userinfo|logout`: the OAuth 2.0 or OpenID Connect session
/// `clearance login` stored.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Show, refresh, ask UserInfo about or end the session stored by `clearance login`.",
        subcommands: [Show.self, Refresh.self, UserInfoCommand.self, Logout.self, StressWrite.self]
    )

    /// Where the session and its key live. Defaults under the user's config directory, created 0700/0600.
    struct StoreOptions: ParsableArguments {
        @Option(help: "The encrypted session file (default: ~/.config/clearance/session.json).")
        var store: String?
        @Option(help: "The key file (base64 of 32 bytes, mode 0600; created when missing). Default: session.key beside the store. CLEARANCE_SESSION_KEY overrides it.")
        var keyFile: String?

        var storeURL: URL { Self.storeURL(store, defaultName: "session.json") }

        var keyURL: URL { Self.keyURL(keyFile, beside: storeURL) }

        /// `path` with `~` expanded, or `defaultName` in Clearance's directory: the convention of
        /// every store the command line keeps.
        static func storeURL(_ path: String?, defaultName: String) -> URL {
            path.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) }
                ?? EncryptedFileSessionStore.defaultDirectory().appendingPathComponent(defaultName)
        }

        /// `keyFile` with `~` expanded, or `session.key` beside `store`.
        static func keyURL(_ keyFile: String?, beside store: URL) -> URL {
            keyFile.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath) }
                ?? store.deletingLastPathComponent().appendingPathComponent("session.key")
        }

        /// The store, with the key from the environment, the key file, or a new key file.
        func makeStore() throws -> EncryptedFileSessionStore {
            EncryptedFileSessionStore(fileURL: storeURL, key: try Self.key(file: keyURL))
        }

        /// The key in `CLEARANCE_SESSION_KEY`, else in `file` (created when missing): the
        /// convention of every store the command line keeps.
        static func key(file: URL) throws -> SessionStoreKey {
            if ProcessInfo.processInfo.environment["CLEARANCE_SESSION_KEY"] != nil {
                return try SessionStoreKey.environment()
            }
            return try SessionStoreKey.loadOrCreate(file: file)
        }

        /// A session for what the store holds; one signed in with OpenID Connect gets its ID
        /// token verifier back (issuer, client, the provider's stored documents).
        ///
        /// - Throws: `openid.stored_identity_unusable` (exit 1) when the stored identity's
        ///   verifier cannot be made again: without it, a refresh would take a new ID token
        ///   unverified and a logout would print no end-session URL.
        func makeSession(allowInsecureHTTP: Bool = false, transport: any HTTPTransport = TimeoutOption.transport(nil)) async throws -> OAuth2Session {
            let (session, unusable) = try await loadSession(allowInsecureHTTP: allowInsecureHTTP, transport: transport)
            if let unusable { throw CommandFailure.exitCode(unusable) }
            return session
        }

        /// The stored session, restored, and why its identity's verifier could not be made again
        /// (the session then has none).
        func loadSession(allowInsecureHTTP: Bool = false, transport: any HTTPTransport = TimeoutOption.transport(nil)) async throws -> (OAuth2Session, OpenIDError?) {
            let store = try makeStore()
            guard let stored = try await store.load() else {
                throw ValidationError("No session is stored at \(storeURL.path); run `clearance login` first.")
            }
            let security = TransportSecurity(allowsInsecureHTTP: allowInsecureHTTP)
            var configuration = try OAuth2SessionConfiguration(stored: stored, store: store, transportSecurity: security)
            configuration.transport = transport
            var unusable: OpenIDError?
            do throws(OpenIDError) {
                configuration.identityVerifier = try IDTokenVerifier(restoring: stored, transport: transport, transportSecurity: security)
            } catch {
                unusable = error
            }
            let session = OAuth2Session(configuration: configuration)
            await session.restore()
            return (session, unusable)
        }
    }

    /// Prints a session's state without secrets (and who signed in, with OpenID Connect).
    static func printState(_ state: OAuth2SessionState, stored: StoredSession? = nil, identity: SessionIdentity? = nil) {
        print("state: \(state.name)")
        if let info = state.tokenInfo ?? stored?.token.info {
            print("token type: \(info.tokenType)")
            if let scopes = info.scopes { print("scopes: \(scopes.joined(separator: " "))") }
            print("expires: \(info.expiresAt.map { $0.formatted(.iso8601) } ?? "unknown")")
            print("refresh token: \(info.hasRefreshToken ? "present" : "none")")
        }
        if let identity = identity ?? stored?.identity {
            print("subject: \(identity.subject ?? "unknown")")
            print("issuer: \(identity.issuer ?? "unknown")")
            print("id token expires: \(identity.expiresAt.map { $0.formatted(.iso8601) } ?? "unknown")")
        }
        if let stored {
            if let endpoints = stored.endpoints {
                print("token endpoint: \(endpoints.token)")
                if let revocation = endpoints.revocation { print("revocation endpoint: \(revocation)") }
            }
            if let client = stored.client { print("client: \(client.id) (\(client.authentication.rawValue))") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the stored session without secrets.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let store = try storeOptions.makeStore()
            do {
                guard let stored = try await store.load() else {
                    print("state: signed_out")
                    print("store: \(storeOptions.storeURL.path) (empty)")
                    return
                }
                printState(.authenticated(stored.token.info), stored: stored)
                print("store: \(storeOptions.storeURL.path)")
            } catch {
                print("state: signed_out")
                throw CommandFailure.exitCode(error)
            }
        }
    }

    /// The stored session, for the commands that talk to its authorization server.
    struct SessionOptions: ParsableArguments {
        @OptionGroup var storeOptions: StoreOptions
        @Flag(help: "Allow plain http to a non-loopback token endpoint.") var allowInsecureHTTP = false
        @Option(help: TimeoutOption.help) var timeout: Double?

        func validate() throws { try TimeoutOption.validate(timeout) }

        func makeSession() async throws -> OAuth2Session {
            try await storeOptions.makeSession(allowInsecureHTTP: allowInsecureHTTP, transport: TimeoutOption.transport(timeout))
        }

        func loadSession() async throws -> (OAuth2Session, OpenIDError?) {
            try await storeOptions.loadSession(allowInsecureHTTP: allowInsecureHTTP, transport: TimeoutOption.transport(timeout))
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refresh the stored session now and save the new tokens.")
        @OptionGroup var options: SessionOptions

        func run() async throws {
            let session = try await options.makeSession()
            do {
                try await session.refresh()
                printState(session.state, identity: session.identity)
            } catch {
                printState(session.state, identity: session.identity)
                throw CommandFailure.exitCode(error)
            }
        }
    }

    struct UserInfoCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "userinfo",
            abstract: "Print the OpenID provider's UserInfo answer about the signed-in user as one line of JSON.",
            discussion: "Its sub must be the ID token's; any other answer is refused.")
        @OptionGroup var options: SessionOptions

        func run() async throws {
            let session = try await options.makeSession()
            guard let verifier = session.configuration.identityVerifier as? IDTokenVerifier else {
                throw CommandFailure.exitCode(OpenIDError.notSignedIn)
            }
            do throws(OpenIDError) {
                print(try await session.userInfo(from: verifier.provider).jsonText)
            } catch {
                throw CommandFailure.exitCode(error)
            }
        }
    }

    struct Logout: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke the tokens (when the server has a revocation endpoint) and clear the store; with OpenID Connect, print the URL that ends the session at the provider.")
        @OptionGroup var options: SessionOptions
        @Option(help: "With OpenID Connect: where the provider sends the browser after signing out (registered with it).") var postLogoutRedirectURI: String?
        @Option(help: "With OpenID Connect: the state echoed to --post-logout-redirect-uri.") var state: String?

        func validate() throws {
            if let postLogoutRedirectURI, URL(string: postLogoutRedirectURI)?.host == nil {
                throw ValidationError("--post-logout-redirect-uri '\(Redactor.scrub(postLogoutRedirectURI))' is not an absolute URL.")
            }
        }

        /// Signs out here whatever happens; a stored identity whose verifier cannot be made again
        /// still signs out (revoked, store cleared), then fails: there is no end-session URL.
        func run() async throws {
            let (session, unusable) = try await options.loadSession()
            guard let verifier = session.configuration.identityVerifier as? IDTokenVerifier else {
                let outcome = await session.signOut()
                print("state: \(session.state.name)")
                print("revocation: \(outcome)")
                if let unusable { throw CommandFailure.exitCode(unusable) }
                return
            }
            let signOut = await session.signOut(
                at: verifier.provider, postLogoutRedirectURI: postLogoutRedirectURI.flatMap(URL.init(string:)), state: state)
            print("state: \(session.state.name)")
            print("revocation: \(signOut.revocation)")
            if let endSession = signOut.endSession {
                print("Open this URL to sign out at the provider:")
                print(endSession.url.absoluteString)
            }
        }
    }

    /// Hidden: writes numbered sessions in a loop, printing each generation once it is durable.
    /// The crash-safety test kills it with SIGKILL at random moments.
    struct StressWrite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stress-write", abstract: "Write sessions in a loop (crash-safety testing).", shouldDisplay: false)
        @Option(help: "The session file.") var store: String
        @Option(help: "The key file.") var keyFile: String
        @Option(help: "The first generation to write.") var start = 1
        @Option(help: "How many to write (0: until killed).") var count = 0

        func run() async throws {
            let key = try SessionStoreKey.file(URL(fileURLWithPath: keyFile))
            let sessionStore = EncryptedFileSessionStore(fileURL: URL(fileURLWithPath: store), key: key)
            var generation = start
            while count == 0 || generation < start + count {
                try await sessionStore.save(Self.session(generation))
                FileHandle.standardOutput.write(Data("\(generation)\n".utf8))
                generation += 1
            }
        }

        /// The session of generation `n`: recognisable, and large enough that writes take a while.
        static func session(_ n: Int) -> StoredSession {
            let padding = (0..<64).map { "scope-\(n)-\($0)" }
            return StoredSession(
                token: OAuth2Token(
                    accessToken: "stress-access-\(n)", refreshToken: "stress-refresh-\(n)",
                    expiresAt: Date(timeIntervalSince1970: 2_000_000_000), scopes: padding,
                    obtainedAt: Date(timeIntervalSince1970: 1_900_000_000 + Double(n))),
                savedAt: Date(timeIntervalSince1970: 1_900_000_000 + Double(n)))
        }
    }
}
