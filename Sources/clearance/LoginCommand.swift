import ArgumentParser
import Clearance
import ClearanceOAuth2
import ClearanceServer
import Foundation

/// `clearance login`: signs in with an OAuth 2.0 grant and stores the session (with its
/// endpoints and client) in the encrypted file store; prints the state without secrets.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in with OAuth 2.0 and store the session in the encrypted session store.",
        discussion: """
            Give exactly one of --username, --client-credentials, --device or --code. The password is \
            read from standard input with --password-stdin, otherwise asked for without echo. Nothing \
            secret is printed; `clearance session show` prints what was stored.
            """
    )

    @Option(help: "The token endpoint URL.") var tokenURL: String
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
    @Option(help: "The authorization endpoint URL (with --code).") var authorizeURL: String?
    @Option(help: "The revocation endpoint URL, used by `clearance session logout`.") var revocationURL: String?
    @Option(name: .customLong("scope"), help: "A scope to ask for (repeatable).") var scopes: [String] = []
    @Option(help: "The Authorization scheme for API requests (Bearer; OAuth2 for Podio-style APIs).") var headerScheme = "Bearer"
    @Flag(help: "Allow plain http to a non-loopback authorization server.") var allowInsecureHTTP = false
    @OptionGroup var storeOptions: SessionCommand.StoreOptions

    func validate() throws {
        let modes = [username != nil, clientCredentials, device, code].filter { $0 }.count
        guard modes == 1 else {
            throw ValidationError("Give exactly one of --username, --client-credentials, --device and --code.")
        }
        if device && deviceURL == nil { throw ValidationError("--device needs --device-url.") }
        if code && authorizeURL == nil { throw ValidationError("--code needs --authorize-url.") }
        if passwordStdin && username == nil { throw ValidationError("--password-stdin goes with --username.") }
        if passwordStdin && clientSecret == "-" { throw ValidationError("Only one secret can come from standard input.") }
        if let clientAuth, ClientAuthenticationMethod(rawValue: clientAuth) == nil {
            throw ValidationError("--client-auth is client_secret_basic, client_secret_post or none.")
        }
        for (name, value) in [("--token-url", tokenURL), ("--device-url", deviceURL), ("--authorize-url", authorizeURL), ("--revocation-url", revocationURL)] {
            if let value, URL(string: value)?.host == nil {
                throw ValidationError("\(name) '\(Redactor.scrub(value))' is not an absolute URL.")
            }
        }
    }

    func run() async throws {
        let store = try storeOptions.makeStore()
        let clientSecret = try SecretInput(flag: "--client-secret", environment: "CLEARANCE_CLIENT_SECRET").resolve(value: clientSecret, file: clientSecretFile)
        let configuration = OAuth2SessionConfiguration(
            tokenEndpoint: URL(string: tokenURL)!, clientID: clientID, clientSecret: clientSecret,
            clientAuthentication: clientAuth.flatMap(ClientAuthenticationMethod.init(rawValue:)),
            revocationEndpoint: revocationURL.flatMap(URL.init(string:)),
            authorizationEndpoint: authorizeURL.flatMap(URL.init(string:)),
            deviceAuthorizationEndpoint: deviceURL.flatMap(URL.init(string:)),
            headerScheme: headerScheme, scopes: scopes,
            store: store, transportSecurity: TransportSecurity(allowsInsecureHTTP: allowInsecureHTTP),
            storesClientConfiguration: true, notificationCenter: nil)
        let session = OAuth2Session(configuration: configuration)
        do {
            if let username {
                try await session.signIn(with: PasswordGrant(username: username, password: try Self.readPassword(fromStandardInput: passwordStdin)))
            } else if clientCredentials {
                try await session.signIn(with: ClientCredentialsGrant())
            } else if device {
                try await session.signIn(with: DeviceAuthorizationGrant { prompt in
                    print(prompt.instruction)
                    if let complete = prompt.verificationURIComplete { print("Or open: \(complete)") }
                })
            } else {
                let listener = try await LoopbackRedirectListener.start()
                defer { Task { await listener.stop() } }
                try await session.signIn(with: AuthorizationCodeFlow(receiver: listener) { url in
                    print("Open this URL in your browser to sign in:")
                    print(url.absoluteString)
                })
            }
        } catch let error as OAuth2Error {
            throw CommandFailure.exitCode(error)
        }
        SessionCommand.printState(session.state)
        print("store: \(storeOptions.storeURL.path)")
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
