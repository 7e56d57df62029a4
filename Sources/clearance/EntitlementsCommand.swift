import ArgumentParser
import AsyncHTTPClient
import Clearance
import ClearanceEntitlements
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceWire
import Foundation

/// `clearance entitlements sign-in|verify|download|status|sign-out`: a Pugpig subscription
/// service from the command line, with the token and the snapshot in the encrypted store.
struct EntitlementsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entitlements",
        abstract: "Sign in to a Pugpig subscription service, verify, download protected content, show or end the session.",
        discussion: """
            Each endpoint has its own URL (--sign-in-url, --renew-url, --verify-url, --credentials-url, \
            --sign-out-url); give those the subcommand needs. The token and the last snapshot are kept in \
            the encrypted store (--store, key as for `clearance login`). Tokens and passwords are never printed. \
            Exit status: 0 on success, 1 with the error's qualified code on standard error, 64 for bad usage.
            """,
        subcommands: [SignIn.self, Verify.self, Download.self, Status.self, SignOut.self]
    )

    /// The service's endpoints, how to call them, and where the session is kept.
    struct ServiceOptions: ParsableArguments {
        @Option(help: "The sign_in endpoint URL.") var signInURL: String?
        @Option(help: "The renew_token endpoint URL (a stale token is renewed once).") var renewURL: String?
        @Option(help: "The verify_subscription endpoint URL.") var verifyURL: String?
        @Option(help: "The edition_credentials endpoint URL.") var credentialsURL: String?
        @Option(help: "The sign_out endpoint URL.") var signOutURL: String?
        @Flag(help: "Send parameters as a POST form body instead of a GET query string.") var post = false
        @Flag(help: "Allow plain http to a non-loopback host.") var allowInsecureHTTP = false
        @Option(help: "The encrypted entitlement store (default: ~/.config/clearance/entitlements.json).") var store: String?
        @Option(help: "The key file (base64 of 32 bytes, mode 0600; created when missing). Default: session.key beside the store. CLEARANCE_SESSION_KEY overrides it.")
        var keyFile: String?

        func validate() throws {
            for (name, value) in [("--sign-in-url", signInURL), ("--renew-url", renewURL), ("--verify-url", verifyURL), ("--credentials-url", credentialsURL), ("--sign-out-url", signOutURL)] {
                if let value, URL(string: value)?.host == nil {
                    throw ValidationError("\(name) '\(Redactor.scrub(value))' is not an absolute URL.")
                }
            }
        }

        /// Throws a usage error unless every `named` option was given.
        func require(_ named: [(String, String?)]) throws {
            for (name, value) in named where value == nil { throw ValidationError("This subcommand needs \(name).") }
        }

        var storeURL: URL { SessionCommand.StoreOptions.storeURL(store, defaultName: "entitlements.json") }

        var keyURL: URL { SessionCommand.StoreOptions.keyURL(keyFile, beside: storeURL) }

        var transportSecurity: TransportSecurity { TransportSecurity(allowsInsecureHTTP: allowInsecureHTTP) }

        /// Runs `body` with the provider on the encrypted store and the transport, on an HTTP client
        /// that fails at once when a server refuses the connection (no retries: a command line
        /// says so rather than wait). An unreadable store is reported and ends the command.
        func withProvider<Result>(_ body: (PugpigEntitlementProvider, any HTTPTransport) async throws -> Result) async throws -> Result {
            let endpoints = PugpigEndpoints(
                signIn: signInURL.flatMap(URL.init(string:)), renewToken: renewURL.flatMap(URL.init(string:)),
                verifySubscription: verifyURL.flatMap(URL.init(string:)), editionCredentials: credentialsURL.flatMap(URL.init(string:)),
                signOut: signOutURL.flatMap(URL.init(string:)))
            let store = StoredEntitlements.fileStore(at: storeURL, key: try SessionCommand.StoreOptions.key(file: keyURL))
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            let transport = AsyncHTTPClientHTTPTransport(client: client)
            let provider = PugpigEntitlementProvider(configuration: PugpigConfiguration(
                endpoints: endpoints, method: post ? .post : .get, store: store, transport: transport,
                transportSecurity: transportSecurity, notificationCenter: nil))
            if let error = await provider.storeError {
                CommandFailure.exit(error)
            }
            do {
                let result = try await body(provider, transport)
                try await client.shutdown()
                return result
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    /// One JSON line: `{"state":…,"access":"all"|[…],"message":…[,"fetchedAt":…]}`.
    static func printSnapshot(_ snapshot: EntitlementSnapshot, fetchedAt: Bool) {
        let access = snapshot.access.sortedProducts.map { "[" + $0.map(JSONWriter.quoted).joined(separator: ",") + "]" } ?? JSONWriter.quoted("all")
        var members = [("state", JSONWriter.quoted(snapshot.state.rawValue)), ("access", access)]
        if let message = snapshot.message { members.append(("message", JSONWriter.quoted(message))) }
        if fetchedAt { members.append(("fetchedAt", JSONWriter.quoted(snapshot.fetchedAt.formatted(.iso8601)))) }
        say(JSONWriter.object(raw: members))
    }

    /// One line on standard output, written at once.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    struct SignIn: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "sign-in", abstract: "Sign in and keep the token in the store (exit 0 when a token came back).")
        @OptionGroup var service: ServiceOptions
        @Option(help: "The user name.") var username: String
        @Flag(help: "Read the password from standard input.") var passwordStdin = false
        @Option(help: "The name of the user-name field.") var usernameField = "username"
        @Option(help: "The name of the password field.") var passwordField = "password"

        func validate() throws { try service.require([("--sign-in-url", service.signInURL)]) }

        func run() async throws {
            let password = try LoginCommand.readPassword(fromStandardInput: passwordStdin)
            try await service.withProvider { provider, _ in
                do throws(EntitlementError) {
                    try await provider.signIn(fields: [(usernameField, username), (passwordField, password)])
                } catch {
                    CommandFailure.exit(error)
                }
            }
            say("signed in; store: \(service.storeURL.path)")
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ask the service now (renewing a stale token once) and print the state as one JSON line.")
        @OptionGroup var service: ServiceOptions

        func validate() throws { try service.require([("--verify-url", service.verifyURL)]) }

        func run() async throws {
            try await service.withProvider { provider, _ in
                do throws(EntitlementError) {
                    printSnapshot(try await provider.verify(), fetchedAt: false)
                } catch {
                    CommandFailure.exit(error)
                }
            }
        }
    }

    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch protected content with fresh edition credentials; the file appears only when complete.",
            discussion: """
                Progress goes to standard error: on a terminal, one line updated in place (bytes, percent, rate); \
                otherwise a line at every 10 % (every 5 s when the size is unknown). --quiet turns it off. \
                The result is one JSON line on standard output.
                """)
        @OptionGroup var service: ServiceOptions
        @Option(help: "The product (issue) id.") var product: String
        @Option(help: "The content URL.") var url: String
        @Option(help: "The file to write.") var output: String
        @Flag(help: "Show no progress.") var quiet = false

        func validate() throws {
            try service.require([("--credentials-url", service.credentialsURL)])
            guard URL(string: url)?.host != nil else { throw ValidationError("--url '\(Redactor.scrub(url))' is not an absolute URL.") }
        }

        func run() async throws {
            let destination = URL(fileURLWithPath: (output as NSString).expandingTildeInPath)
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            let source = URL(string: url)!
            try await service.withProvider { provider, transport in
                let downloader = ContentDownloader(provider: provider, transport: transport, transportSecurity: service.transportSecurity)
                let display = Locked((shown: DownloadProgressDisplay(style: .standardError(quiet: quiet), product: product), last: DownloadProgress?.none))
                @Sendable func show(_ text: String?) {
                    if let text { FileHandle.standardError.write(Data(text.utf8)) }
                }
                do throws(EntitlementError) {
                    let bytes = try await downloader.download(product, from: source, to: destination) { progress in
                        show(display.withLock { state in
                            state.last = progress
                            return state.shown.update(progress)
                        })
                    }
                    show(display.withLock { $0.shown.finish($0.last) })
                    say(JSONWriter.object(raw: [("product", JSONWriter.quoted(product)), ("bytes", "\(bytes)"), ("output", JSONWriter.quoted(destination.path))]))
                } catch {
                    show(display.withLock { $0.shown.finish($0.last) })
                    CommandFailure.exit(error)
                }
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the stored snapshot as one JSON line with fetchedAt, without asking the service.")
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await service.withProvider { provider, _ in
                printSnapshot(await provider.cachedStatus().snapshot, fetchedAt: await provider.lastSnapshot != nil)
            }
        }
    }

    struct SignOut: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "sign-out", abstract: "Tell the service (with --sign-out-url) and clear the store.")
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await service.withProvider { provider, _ in await provider.signOut() }
            printSnapshot(.signedOut(at: Date()), fetchedAt: false)
        }
    }
}
