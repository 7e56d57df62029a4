import ArgumentParser
import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceOpenID
import ClearanceServer
import Foundation

/// `clearance login`: signs in with an OAuth 2.0 grant, or with OpenID Connect (`--issuer`),
/// and stores the session (with its endpoints, client and verified identity) in the encrypted
/// file store; prints the state without secrets.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in with OAuth 2.0 or OpenID Connect and store the session in the encrypted session store.",
        discussion: """
            Give exactly one of --username, --client-credentials, --device or --code. With --issuer \
            (and --code), the provider is discovered and every endpoint comes from its discovery \
            document (--token-url, --authorize-url and --revocation-url override it); the ID token is \
            verified before anything is stored. The password is read from standard input with \
            --password-stdin, otherwise asked for without echo. Nothing secret is printed; \
            `clearance session show` prints what was stored.

            The new session replaces the stored one, whose refresh token is revoked at its own \
            server (never sent to the new one) when it recorded a revocation endpoint. When the \
            sign-in fails (refused ID token, refused grant, no answer), the session stored before is \
            signed out too (revoked at its own server when it recorded a revocation endpoint, then \
            cleared): you asked to sign in anew, so no earlier identity is left to show. A failure \
            before signing in (bad flags, discovery) leaves it alone. Every request ends within \
            --timeout seconds (60 by default), head and body together.
            """
    )

    @Option(help: "The OpenID provider's issuer URL: endpoints from its discovery document, the ID token verified (with --code).") var issuer: String?
    @Option(help: "The token endpoint URL (required without --issuer).") var tokenURL: String?
    @Option(help: "The client id.") var clientID: String
    @Option(help: "The client secret (confidential clients); - reads it from standard input. Also --client-secret-file or CLEARANCE_CLIENT_SECRET.") var clientSecret: String?
    @Option(help: "A file holding the client secret.") var clientSecretFile: String?
    @Option(help: "How the client authenticates: client_secret_basic, client_secret_post or none.") var clientAuth: String?
    @Option(help: "Sign in as this user (password grant).") var username: String?
    @Flag(help: "Read the password from standard input.") var passwordStdin = false
    @Flag(help: "Sign in as the client (client credentials grant).") var clientCredentials = false
    @Flag(help: "Sign in with the device flow (RFC 8628).") var device = false
    @Option(help: "The device authorization endpoint URL (with --device).") var deviceURL: String?
    @Flag(help: "Sign in in the browser (authorization code with PKCE, loopback redirect).") var code = false
    @Option(help: "The authorization endpoint URL (with --code; from discovery with --issuer).") var authorizeURL: String?
    @Option(help: "The revocation endpoint URL, used by `clearance session logout`.") var revocationURL: String?
    @Option(name: .customLong("scope"), help: "A scope to ask for (repeatable; openid is added with --issuer).") var scopes: [String] = []
    @Option(help: "With --issuer: the prompt parameter (login, consent, select_account, none).") var prompt: String?
    @Option(help: "With --issuer: max_age in seconds (the ID token must show a recent enough sign-in).") var maxAge: Int?
    @Option(help: "With --issuer: the login_hint parameter.") var loginHint: String?
    @Flag(help: "With --issuer: the client was registered for HS256 ID tokens (its secret verifies them; a client secret is required).") var allowHS256IDTokens = false
    @Option(help: "The Authorization scheme for API requests (Bearer; OAuth2 for Podio-style APIs).") var headerScheme = "Bearer"
    @Flag(help: "Allow plain http to a non-loopback authorization server.") var allowInsecureHTTP = false
    @Option(help: TimeoutOption.help) var timeout: Double?
    @OptionGroup var storeOptions: SessionCommand.StoreOptions

    func validate() throws {
        let modes = [username != nil, clientCredentials, device, code].filter { $0 }.count
        guard modes == 1 else {
            throw ValidationError("Give exactly one of --username, --client-credentials, --device and --code.")
        }
        if issuer != nil && !code { throw ValidationError("--issuer signs in with --code (OpenID Connect's authorization code flow).") }
        if issuer == nil {
            if tokenURL == nil { throw ValidationError("Give --token-url, or --issuer to discover it.") }
            if code && authorizeURL == nil { throw ValidationError("--code needs --authorize-url (or --issuer).") }
            if prompt != nil || maxAge != nil || loginHint != nil || allowHS256IDTokens {
                throw ValidationError("--prompt, --max-age, --login-hint and --allow-hs256-id-tokens go with --issuer.")
            }
        }
        if let maxAge, maxAge < 0 { throw ValidationError("--max-age is a number of seconds, 0 or more.") }
        try TimeoutOption.validate(timeout)
        if device && deviceURL == nil { throw ValidationError("--device needs --device-url.") }
        if passwordStdin && username == nil { throw ValidationError("--password-stdin goes with --username.") }
        if passwordStdin && clientSecret == "-" { throw ValidationError("Only one secret can come from standard input.") }
        if let clientAuth, ClientAuthenticationMethod(rawValue: clientAuth) == nil {
            throw ValidationError("--client-auth is client_secret_basic, client_secret_post or none.")
        }
        for (name, value) in [("--issuer", issuer), ("--token-url", tokenURL), ("--device-url", deviceURL), ("--authorize-url", authorizeURL), ("--revocation-url", revocationURL)] {
            if let value, URL(string: value)?.host == nil {
                throw ValidationError("\(name) '\(Redactor.scrub(value))' is not an absolute URL.")
            }
        }
    }

    func run() async throws {
        let store = try storeOptions.makeStore()
        let clientSecret = try SecretInput(flag: "--client-secret", environment: "CLEARANCE_CLIENT_SECRET").resolve(value: clientSecret, file: clientSecretFile)
        if allowHS256IDTokens && clientSecret == nil {
            throw ValidationError("--allow-hs256-id-tokens needs the client secret (--client-secret, --client-secret-file or CLEARANCE_CLIENT_SECRET): it is the HS256 key.")
        }
        var configuration = try await sessionConfiguration(store: store, clientSecret: clientSecret)
        configuration.headerScheme = headerScheme
        let earlier = try? await store.load()
        let session = OAuth2Session(configuration: configuration)
        do {
            if let username {
                try await session.signIn(with: PasswordGrant(username: username, password: try Self.readPassword(fromStandardInput: passwordStdin)))
            } else if clientCredentials {
                try await session.signIn(with: ClientCredentialsGrant())
            } else if device {
                try await session.signIn(with: DeviceAuthorizationGrant { prompt in
                    Self.say(prompt.instruction)
                    if let complete = prompt.verificationURIComplete { Self.say("Or open: \(complete)") }
                })
            } else {
                let listener = try await LoopbackRedirectListener.start()
                defer { Task { await listener.stop() } }
                let show: @Sendable (URL) async throws -> Void = { url in
                    Self.say("Open this URL in your browser to sign in:\n\(url.absoluteString)")
                }
                if issuer != nil {
                    try await session.signIn(with: OpenIDAuthorizationCodeFlow(
                        receiver: listener, prompt: prompt, maxAge: maxAge.map { .seconds($0) }, loginHint: loginHint, openURL: show))
                } else {
                    try await session.signIn(with: AuthorizationCodeFlow(receiver: listener, openURL: show))
                }
            }
        } catch let error as OAuth2Error {
            await signOut(earlier, from: store)
            throw CommandFailure.exitCode(error)
        }
        SessionCommand.printState(session.state, identity: session.identity)
        print("store: \(storeOptions.storeURL.path)")
    }

    /// The session's configuration: from the provider's discovery document with `--issuer`
    /// (the flags overriding it), else from the flags.
    private func sessionConfiguration(store: EncryptedFileSessionStore, clientSecret: String?) async throws -> OAuth2SessionConfiguration {
        let security = TransportSecurity(allowsInsecureHTTP: allowInsecureHTTP)
        let authentication = clientAuth.flatMap(ClientAuthenticationMethod.init(rawValue:))
        guard let issuer = issuer.flatMap(URL.init(string:)) else {
            return OAuth2SessionConfiguration(
                tokenEndpoint: URL(string: tokenURL!)!, clientID: clientID, clientSecret: clientSecret,
                clientAuthentication: authentication, revocationEndpoint: revocationURL.flatMap(URL.init(string:)),
                authorizationEndpoint: authorizeURL.flatMap(URL.init(string:)), deviceAuthorizationEndpoint: deviceURL.flatMap(URL.init(string:)),
                scopes: scopes, store: store, transport: TimeoutOption.transport(timeout), transportSecurity: security,
                storesClientConfiguration: true, notificationCenter: nil)
        }
        do throws(OpenIDError) {
            let provider = try await OpenIDProvider.discover(issuer: issuer, transport: TimeoutOption.transport(timeout), transportSecurity: security)
            var configuration = try await provider.sessionConfiguration(
                clientID: clientID, clientSecret: clientSecret, clientAuthentication: authentication, scopes: scopes,
                allowsHS256: allowHS256IDTokens, store: store, storesClientConfiguration: true, notificationCenter: nil)
            if let tokenURL { configuration.endpoints.token = URL(string: tokenURL)! }
            if let authorizeURL { configuration.endpoints.authorization = URL(string: authorizeURL)! }
            if let revocationURL { configuration.endpoints.revocation = URL(string: revocationURL)! }
            return configuration
        } catch {
            throw CommandFailure.exitCode(error)
        }
    }

    /// Signs out the session stored before a sign-in that failed: revoked at its own server
    /// (never at the new one) when it recorded where, and the store cleared.
    private func signOut(_ earlier: StoredSession?, from store: EncryptedFileSessionStore) async {
        guard let earlier else { return }
        let security = TransportSecurity(allowsInsecureHTTP: allowInsecureHTTP)
        guard var configuration = try? OAuth2SessionConfiguration(stored: earlier, store: store, transportSecurity: security) else {
            do {
                try await store.clear()
                Self.say("earlier session: signed out (revocation: \(RevocationOutcome.notConfigured))")
            } catch {
                FileHandle.standardError.write(Data("warning: the earlier session could not be cleared: \(error.description)\n".utf8))
            }
            return
        }
        configuration.transport = TimeoutOption.transport(timeout)
        let outcome = await OAuth2Session(configuration: configuration).signOut()
        Self.say("earlier session: signed out (revocation: \(outcome))")
    }

    /// Lines on standard output, written at once: a script or a terminal multiplexer reading a
    /// pipe must see the URL while the command waits for the browser.
    static func say(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// The password: the first line of standard input, or asked for without echo.
    static func readPassword(fromStandardInput passwordStdin: Bool) throws -> String {
        if passwordStdin {
            guard let line = readLine(strippingNewline: true) else { throw ValidationError("No password on standard input.") }
            return line
        }
        #if canImport(Darwin) || canImport(Glibc)
        guard let entered = getpass("Password: ") else { throw ValidationError("No password entered.") }
        return String(cString: entered)
        #else
        throw ValidationError("Use --password-stdin on this platform.")
        #endif
    }
}
