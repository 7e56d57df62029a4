import ArgumentParser
import ClearanceDevelopment
import ClearanceServer
import ClearanceServerPostgres
import Foundation
import Logging
import ServiceLifecycle

/// `clearance serve`: a Pusher-compatible hub. In production mode (the default) it serves the
/// WebSocket endpoint and the HTTP API only; `--development` adds the development OAuth2 and
/// OpenID provider, auth endpoints, Pugpig and content endpoints.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a Pusher-compatible realtime hub: production by default, --development for local work and tests.",
        discussion: """
            Clients connect to ws://HOST:PORT/app/KEY; server libraries trigger events through \
            http://HOST:PORT/apps/APP_ID/events. That is all a production hub serves: your app signs \
            channels with its own auth endpoint (PusherAuthEndpoints, or any Pusher server library). \
            Each app's allowedOrigins (configuration file) restricts which web pages may connect \
            (403 before the upgrade for others). Without --config, one app is served, with a \
            generated secret written to --generated-secret-file, or else shown once on standard error \
            (never on standard output).

            --development (or CLEARANCE_DEVELOPMENT=1), for local work, demos and tests only, also \
            mounts: a development OAuth2 and OpenID provider whose clients and passwords are public \
            (/oauth/…, /.well-known/openid-configuration); POST /pusher/auth and /pusher/user-auth, \
            which sign for the development users of the configuration file (Bearer token, the \
            clearance_token cookie, or Basic password) and answer pages of the first app's allowed \
            origins cross origin (CORS); the development Pugpig endpoints (/pugpig/sign_in, …) and \
            protected content (/content/{product}/…) for the same users, with the `pugpig` settings \
            (their clock moved by the seconds in the file CLEARANCE_DEVELOPMENT_CLOCK_OFFSET_FILE names, \
            read at each use: for tests). \
            Without --config, two users (alice, bob) get random tokens, printed at start. In production \
            mode the file's `users`, `pugpig` and `corsCredentials` are ignored, with a warning.

            Flags override the first app of the configuration file. Stops cleanly on SIGINT/SIGTERM: \
            stops listening, then closes connections with 4200 so clients reconnect. On SIGHUP it reads the \
            configuration (and the TLS files) again and applies it without a restart: apps added, removed \
            (their connections closed with 4001), given a new key, secret or limits (open connections of an \
            app whose key did not change stay); it prints `reloaded …`, or `reload refused: …` and keeps the \
            last good configuration. host, port, hub-wide limits and metrics need a restart. With \
            --backplane, hubs on the same PostgreSQL database form a cluster: events, client \
            events, presence and the channel API span every hub; every message between them is \
            sealed with the cluster key they share (--cluster-key-file, required with --backplane).

            With --metrics-port (or CLEARANCE_METRICS_PORT, or "metrics" in the file), a second port \
            (127.0.0.1 unless --metrics-host) serves GET /metrics (Prometheus text format), /health \
            (200 while the process runs) and /ready (200 while the hub accepts connections, 503 from \
            SIGTERM until it exits).
            With --tls-certificate and --tls-key (PEM files), the hub serves wss:// and https:// on \
            its port instead (a file that cannot be used stops it at start, named).

            Every option has an environment variable, named in its help (CLEARANCE_ and the option \
            in upper snake case: CLEARANCE_PORT, CLEARANCE_LOG_LEVEL, CLEARANCE_TLS_CERTIFICATE, …; \
            the secrets keep CLEARANCE_APP_SECRET, CLEARANCE_BACKPLANE_URL, CLEARANCE_CLUSTER_KEY), \
            and so has every limit (CLEARANCE_LIMITS_ and its name in upper snake case, listed below; \
            read again on SIGHUP). A flag wins over its variable, which wins over the configuration \
            file, which wins over the defaults. An empty variable counts as unset.

            """ + HubLimits.helpText
    )

    @Flag(help: """
        Development mode (also CLEARANCE_DEVELOPMENT=1): mount the development OAuth2/OpenID provider, auth endpoints, \
        Pugpig and content endpoints, whose users and passwords are public. Never in production.
        """)
    var development = false

    @Option(help: "The address to listen on (default 127.0.0.1, or the configuration's). Also CLEARANCE_HOST.")
    var host: String?

    @Option(help: "The port to listen on; 0 picks a free one (default 6001, or the configuration's). Also CLEARANCE_PORT.")
    var port: Int?

    @Option(name: .customLong("app-id"), help: "The app id (default 100001; the official Python library accepts digits only). Also CLEARANCE_APP_ID.")
    var appID: String?

    @Option(help: "The app key (default clearance-key). Also CLEARANCE_KEY.")
    var key: String?

    @Option(help: """
        The app secret (default: generated, written to --generated-secret-file or else once to standard error, never to standard \
        output); - reads it from standard input (once: a reload keeps it). Also --secret-file or CLEARANCE_APP_SECRET. It replaces \
        the secret of the configuration file's first app, with a warning when they differ.
        """)
    var secret: String?

    @Option(name: .customLong("generated-secret-file"), help: """
        Where a generated app secret is written (created with mode 0600), instead of once to standard error. \
        Also CLEARANCE_GENERATED_SECRET_FILE.
        """)
    var generatedSecretFile: String?

    @Option(name: .customLong("secret-file"), help: "A file holding the app secret. Also CLEARANCE_SECRET_FILE.")
    var secretFile: String?

    @Option(help: """
        A JSON configuration file: apps (with their allowedOrigins), limits, host, port, tls; users, pugpig and corsCredentials \
        with --development. Also CLEARANCE_CONFIG.
        """)
    var config: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (default info). Also CLEARANCE_LOG_LEVEL.")
    var logLevel: String?

    @Option(help: """
        Join a cluster of hubs through PostgreSQL: postgres://USER[:PASSWORD]@HOST:PORT/DATABASE (optional ?sslmode=require, \
        ?namespace=NAME); - reads the URL from standard input. Also --backplane-file or CLEARANCE_BACKPLANE_URL (for a URL with a password).
        """)
    var backplane: String?

    @Option(name: .customLong("backplane-file"), help: "A file holding the backplane URL. Also CLEARANCE_BACKPLANE_FILE.")
    var backplaneFile: String?

    @Option(name: .customLong("cluster-key"), help: """
        The secret every hub of the cluster shares (at least 32 characters; make one with `openssl rand -base64 48`): \
        every message between hubs is sealed with it. Required with --backplane; - reads it from standard input. \
        Also --cluster-key-file or CLEARANCE_CLUSTER_KEY.
        """)
    var clusterKey: String?

    @Option(name: .customLong("cluster-key-file"), help: "A file holding the cluster key. Also CLEARANCE_CLUSTER_KEY_FILE.")
    var clusterKeyFile: String?

    @Option(name: .customLong("metrics-port"), help: """
        Serve /metrics (Prometheus), /health and /ready on this port (also CLEARANCE_METRICS_PORT, or "metrics": {"port"} \
        in the configuration file); 0 picks a free one. Off when not set.
        """)
    var metricsPort: Int?

    @Option(name: .customLong("metrics-host"), help: """
        The address the metrics port listens on (also CLEARANCE_METRICS_HOST; default 127.0.0.1, or the configuration's).
        """)
    var metricsHost: String?
    @Option(name: .customLong("tls-certificate"), help: """
        A PEM file of the hub's certificate (then any intermediates): with --tls-key, serve wss:// and https://. \
        Also CLEARANCE_TLS_CERTIFICATE.
        """)
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: "The PEM file of the certificate's private key (unencrypted). Also CLEARANCE_TLS_KEY.")
    var tlsKey: String?

    @Option(name: .customLong("apps-database"), help: """
        Read the apps from PostgreSQL instead of the configuration file (which must then list none): \
        postgres://USER[:PASSWORD]@HOST:PORT/DATABASE (optional ?sslmode=require, ?namespace=NAME), the backplane's database \
        or another; changed with `clearance apps`, applied within a second on every hub, no SIGHUP. - reads the URL from standard \
        input. Also --apps-database-file or CLEARANCE_APPS_DATABASE_URL. Needs --apps-key.
        """)
    var appsDatabase: String?

    @Option(name: .customLong("apps-database-file"), help: "A file holding the apps database URL. Also CLEARANCE_APPS_DATABASE_FILE.")
    var appsDatabaseFile: String?

    @Option(name: .customLong("apps-key"), help: """
        The key the apps' secrets are sealed with in the apps database (at least 32 characters; `openssl rand -base64 48`), the \
        same for every hub and `clearance apps`; - reads it from standard input. Also --apps-key-file or CLEARANCE_APPS_KEY.
        """)
    var appsKey: String?

    @Option(name: .customLong("apps-key-file"), help: "A file holding the apps key. Also CLEARANCE_APPS_KEY_FILE.")
    var appsKeyFile: String?

    /// The `CLEARANCE_…` variables, read where an option is not given.
    private var environment: ServeEnvironment { ServeEnvironment() }

    func validate() throws {
        let fromStandardInput = [
            ("--secret", secret), ("--backplane", backplane), ("--cluster-key", clusterKey), ("--apps-database", appsDatabase), ("--apps-key", appsKey),
        ].filter { $0.1 == "-" }.map(\.0)
        if fromStandardInput.count > 1 {
            throw ValidationError("Only one of \(fromStandardInput.joined(separator: ", ")) can come from standard input.")
        }
        if backplane == nil && environment.string("--backplane-file", backplaneFile) == nil
            && ProcessInfo.processInfo.environment["CLEARANCE_BACKPLANE_URL"] == nil,
           clusterKey != nil || clusterKeyFile != nil {
            throw ValidationError("--cluster-key and --cluster-key-file are for a cluster: give --backplane too.")
        }
    }

    /// The backplane, from `--backplane` (a value, or `-` for standard input), `--backplane-file`
    /// or `CLEARANCE_BACKPLANE_URL`, with the cluster key from `--cluster-key`,
    /// `--cluster-key-file` or `CLEARANCE_CLUSTER_KEY` (required); nil when no backplane is given.
    /// A URL with a password given on the command line is warned about, as every secret is.
    private func backplaneConfiguration() throws -> PostgresBackplaneConfiguration? {
        let hasPassword = backplane.flatMap { URLComponents(string: $0)?.password } != nil
        guard let url = try resolveSecret(SecretInput(flag: "--backplane", environment: "CLEARANCE_BACKPLANE_URL"), backplane, backplaneFile, warnsOnCommandLine: hasPassword)
        else { return nil }
        guard let secret = try resolveSecret(SecretInput(flag: "--cluster-key", environment: "CLEARANCE_CLUSTER_KEY"), clusterKey, clusterKeyFile) else {
            throw ValidationError("""
                --backplane needs a cluster key, the same on every hub of the cluster: every message between hubs is sealed with it. \
                Make one with `openssl rand -base64 48 > cluster.key` and give it with --cluster-key-file cluster.key, \
                --cluster-key - (standard input) or CLEARANCE_CLUSTER_KEY.
                """)
        }
        do {
            return try PostgresBackplaneConfiguration(url: url, clusterKey: BackplaneClusterKey(secret: secret))
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// A secret from its flag, its file flag, its variable or its file's variable (`CLEARANCE_SECRET_FILE`), in that order.
    private func resolveSecret(_ input: SecretInput, _ value: String?, _ file: String?, warnsOnCommandLine: Bool = true) throws -> String? {
        try input.resolve(value: value, file: file, fileVariable: ServeEnvironment.variable(for: input.flag + "-file"), warnsOnCommandLine: warnsOnCommandLine)
    }

    /// The level from `--log-level`, else `CLEARANCE_LOG_LEVEL`, else `info`.
    private func level() throws -> Logger.Level {
        guard let name = environment.string("--log-level", logLevel) else { return .info }
        guard let level = Logger.Level(rawValue: name) else {
            let source = logLevel == nil ? "CLEARANCE_LOG_LEVEL is '\(name.prefix(100))'" : "Unknown log level '\(name)'"
            throw ValidationError("\(source): use trace, debug, info, notice, warning, error or critical.")
        }
        return level
    }

    /// `--tls-certificate` and `--tls-key` (or their variables, or the file's `tls`), both or
    /// neither; the files are checked later, before the hub listens.
    private func tls(file: HubTLSConfiguration?) throws -> HubTLSConfiguration? {
        let certificate = environment.string("--tls-certificate", tlsCertificate) ?? file?.certificate
        let key = environment.string("--tls-key", tlsKey) ?? file?.key
        switch (certificate, key) {
        case (nil, nil): return nil
        case (_?, nil): throw ValidationError("--tls-certificate (CLEARANCE_TLS_CERTIFICATE) needs --tls-key (CLEARANCE_TLS_KEY): the certificate's private key.")
        case (nil, _?): throw ValidationError("--tls-key (CLEARANCE_TLS_KEY) needs --tls-certificate (CLEARANCE_TLS_CERTIFICATE): the certificate it belongs to.")
        case let (certificate?, key?): return HubTLSConfiguration(certificate: certificate, key: key)
        }
    }

    func run() async throws {
        // A SIGHUP before the reload service traps it would end the process (its default
        // action): ignored from the first line; ServeReloadService takes it over.
        signal(SIGHUP, SIG_IGN)
        let level = try level()
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "clearance.serve")

        let development = try isDevelopment()
        // A secret given on standard input is read once, here: a reload keeps it.
        let secrets = StartSecrets(
            appSecret: try resolveSecret(SecretInput(flag: "--secret", environment: "CLEARANCE_APP_SECRET"), secret, secretFile),
            fromStandardInput: secret == "-")
        let appsInput = AppsDatabaseInput(flag: "--apps-database", url: appsDatabase, urlFile: appsDatabaseFile, key: appsKey, keyFile: appsKeyFile)
        let appsSource = try appsInput.resolve(needsKey: true)
        if appsSource != nil, development {
            throw ValidationError("--apps-database is for production hubs: --development serves the apps of its configuration file.")
        }
        if appsSource != nil, secrets.startAppSecret != nil || environment.string("--app-id", appID) != nil || environment.string("--key", key) != nil {
            throw ValidationError("""
                With --apps-database the apps come from the database: --app-id, --key and --secret (and their variables) are for a hub \
                without one. Add the app with `clearance apps add`.
                """)
        }
        let resolved = try resolveConfiguration(development: development, secrets: secrets, appsFromDatabase: appsSource != nil)
        var (hub, notes) = (resolved.hub, resolved.notes)
        let generated = resolved.generatedSecret
        let backplane = try backplaneConfiguration()
        if let backplane {
            do {
                try await PostgresCluster.prepareSchema(backplane, logger: Logger(label: "clearance.backplane"))
            } catch {
                throw ValidationError(error.message)
            }
        }
        let appsWatcher = appsSource.map { PostgresAppsWatcher(configuration: $0, limits: hub.configuration.limits, logger: Logger(label: "clearance.apps")) }
        if let appsWatcher, let appsSource {
            do {
                hub.configuration.apps = try await appsWatcher.start()
            } catch {
                throw ValidationError(error.message)
            }
            notes.append("apps from the database \(appsSource) (\(hub.configuration.apps.count) now; `clearance apps` changes them, applied within a second)")
        }
        // Only once everything given was accepted: a hub that does not start shows no secret.
        if generated, let app = hub.configuration.apps.first { try announceGenerated(secret: app.secret, appID: app.id) }
        let configuration = hub.configuration
        for note in notes { Self.say(note) }
        let node = backplane.map {
            PostgresCluster(
                configuration: $0, logger: Logger(label: "clearance.backplane"), limits: configuration.limits, apps: configuration.sharingApps)
        }
        let metrics = HubMetrics()
        // Before any scrape can come: the rows refused at start count from the first one.
        if let appsWatcher { metrics.appsRefused(await appsWatcher.refusedApps.count) }
        let reloader = HubReloader()
        if let node { Self.reportBackplane(node, metrics: metrics) }
        let service: HubService
        if development {
            service = try await developmentService(hub, cluster: node?.drivers, metrics: metrics, reloader: reloader)
        } else {
            Self.say("production mode: the WebSocket endpoint and the HTTP API only (--development adds the development "
                + "OAuth2/OpenID provider, auth endpoints, Pugpig and content endpoints)")
            service = HubService(
                configuration: configuration,
                cluster: node?.drivers,
                logger: Logger(label: "clearance.hub"),
                onReady: { hub in
                    let webSocket = hub.webSocketURL().absoluteString
                    Self.say("ready ws=\(webSocket) http=\(hub.httpURL.absoluteString)")
                },
                metrics: metrics,
                reloader: reloader
            )
        }
        // The metrics endpoints first: a group stops its services in reverse order, so they
        // answer (/ready 503) until the hub has drained.
        let endpoints = configuration.metrics.map { address in
            HubMetricsService(configuration: address, metrics: metrics, logger: Logger(label: "clearance.metrics")) { host, port in
                Self.say("metrics http://\(host):\(port)/metrics (also /health, /ready)")
            }
        }
        var services: [any Service] = []
        if let endpoints { services.append(endpoints) }
        services.append(service)
        // Last, so that they stop first: no reload once shutdown begins.
        let command = self
        let startSecret = configuration.apps.first?.secret
        let fromDatabase = appsSource != nil
        let feed = ServeAppsFeed(reloader: reloader, base: configuration, say: { Self.say($0) })
        if let appsWatcher { services.append(ServeAppsService(watcher: appsWatcher, feed: feed, metrics: metrics)) }
        services.append(ServeReloadService(
            apply: { (configuration: HubConfiguration) async throws(HubReloadError) -> HubReloadReport in
                guard fromDatabase else { return try await reloader.reload(configuration) }
                return try await feed.apply(base: configuration)
            },
            resolve: {
                try command.resolveConfiguration(
                    development: development, secrets: secrets, keepingSecret: startSecret, appsFromDatabase: fromDatabase
                ).0.configuration
            },
            logger: Logger(label: "clearance.serve"),
            say: { Self.say($0) }))
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        try await group.run()
    }

    /// `--development` or `CLEARANCE_DEVELOPMENT` (`1` or `true`; `0`, `false` or empty: off).
    private func isDevelopment() throws -> Bool {
        if development { return true }
        switch ProcessInfo.processInfo.environment["CLEARANCE_DEVELOPMENT"]?.lowercased() {
        case nil, "", "0", "false": return false
        case "1", "true": return true
        case let other?: throw ValidationError("CLEARANCE_DEVELOPMENT is '\(other)': use 1 (development mode) or 0.")
        }
    }

    /// The hub with every development endpoint mounted, announced (DEVELOPMENT ONLY) on stdout.
    private func developmentService(
        _ hub: DevelopmentHub, cluster: ClusterDrivers?, metrics: HubMetrics, reloader: HubReloader
    ) async throws -> HubService {
        let configuration = hub.configuration
        // The development OAuth2 provider and OpenID provider on the same HTTP server.
        let provider = try await DevelopmentOAuth2Provider(logger: Logger(label: "clearance.oauth2.development-provider"))
        Self.say("development OAuth2 provider (DEVELOPMENT ONLY, not for production): POST /oauth/token, POST /oauth/revoke, GET /oauth/me; "
            + "clients \(provider.configuration.clients.keys.sorted().joined(separator: ",")), public clients \(provider.configuration.publicClients.sorted().joined(separator: ",")), "
            + "users \(provider.configuration.users.keys.sorted().joined(separator: ",")), "
            + "apps \(provider.configuration.apps.keys.sorted().joined(separator: ",")) (their passwords and tokens are the built-in demo ones)")
        Self.say("development OpenID provider (DEVELOPMENT ONLY): issuer http://<the Host asked for>, GET /.well-known/openid-configuration, "
            + "GET /oauth/authorize (signs in the login_hint user or the first one, no login page), GET /oauth/jwks (ES256 key made at start), "
            + "GET /oauth/userinfo, GET /oauth/logout")
        let origins = try Self.originAllowlist(configuration)
        Self.say("development auth endpoints (DEVELOPMENT ONLY): POST /pusher/auth, POST /pusher/user-auth for the users "
            + "\(hub.users.map(\.id).joined(separator: ",")); CORS for pages of the origins \(origins)")
        Self.say("development Pugpig endpoints (DEVELOPMENT ONLY): GET or POST /pugpig/sign_in, /pugpig/renew_token, /pugpig/verify_subscription, "
            + "/pugpig/edition_credentials, /pugpig/sign_out (user name = user id, password = user token); protected content under /content/{product}/…"
            + (hub.pugpig.contentDirectory.map { " from \($0)" } ?? " (no content directory configured)"))
        return try hub.service(
            cluster: cluster,
            logger: Logger(label: "clearance.hub"),
            onReady: { hub in
                let webSocket = hub.webSocketURL(forKey: configuration.apps[0].key).absoluteString
                Self.say("ready ws=\(webSocket) http=\(hub.httpURL.absoluteString) oauth2=\(hub.httpURL.absoluteString)/oauth/token")
            },
            additionalRoutes: { router in provider.addRoutes(to: router) },
            metrics: metrics,
            reloader: reloader
        )
    }

    /// The first app's allowed origins, for the development auth endpoints' announcement.
    private static func originAllowlist(_ configuration: HubConfiguration) throws -> OriginAllowlist {
        do {
            return try configuration.apps[0].originAllowlist()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The configuration (file, then flags, then defaults) and the lines to print about it. In
    /// production mode the development members of the file are ignored, with a warning naming
    /// them, and no user is made up. The app secret is the one `secrets` read at start (a flag,
    /// its file, standard input or the variable), which replaces the file's first app's, with a
    /// warning when they differ. A reload resolves it again `keepingSecret` the one the first app
    /// started with, when that one was generated (none given anywhere).
    private func resolveConfiguration(
        development: Bool, secrets: StartSecrets, keepingSecret: String? = nil, appsFromDatabase: Bool = false
    ) throws -> (hub: DevelopmentHub, notes: [String], generatedSecret: Bool) {
        var hub: DevelopmentHub
        var notes: [String] = []
        if let config = environment.string("--config", config) {
            do {
                hub = try DevelopmentHub.load(contentsOf: URL(fileURLWithPath: config), validating: false)
            } catch {
                throw ValidationError(String(describing: error))
            }
            let flat = HubLimits.flatNames(inConfiguration: (try? Data(contentsOf: URL(fileURLWithPath: config))) ?? Data())
            if !flat.isEmpty {
                let places = flat.map { "\($0.grouped) for \($0.flat)" }.joined(separator: ", ")
                FileHandle.standardError.write(Data(
                    "warning: \(config) sets limits by their flat names, which still load but are deprecated: write \(places).\n".utf8))
            }
            if !development {
                let ignored = Self.developmentMembers(in: URL(fileURLWithPath: config))
                if !ignored.isEmpty {
                    FileHandle.standardError.write(Data("""
                        warning: production mode ignores \(ignored.joined(separator: ", ")) of \(config): \
                        they are for the development endpoints, which only --development mounts.\n
                        """.utf8))
                }
                hub = DevelopmentHub(configuration: hub.configuration)
            }
        } else if !development {
            hub = DevelopmentHub(configuration: HubConfiguration(apps: []))
        } else {
            hub = DevelopmentHub(configuration: HubConfiguration(apps: []))
            hub.users = [("alice", DevelopmentEntitlement.all), ("bob", .issues(["issue-1"]))].map { name, entitlements in
                DevelopmentUser(token: HubConfiguration.randomSecret(), id: name, info: .object(["name": .string(name.capitalized)]), entitlements: entitlements)
            }
            for user in hub.users {
                notes.append("user \(user.id) token=\(user.token)")
            }
        }
        if let path = ProcessInfo.processInfo.environment["CLEARANCE_DEVELOPMENT_CLOCK_OFFSET_FILE"], !path.isEmpty {
            if development {
                // A test's clock for the development Pugpig endpoints (DevelopmentClockFile).
                do {
                    let clock = try DevelopmentClockFile(path: path)
                    hub.pugpigClock = { clock.now() }
                } catch {
                    throw ValidationError("CLEARANCE_DEVELOPMENT_CLOCK_OFFSET_FILE: \(error)")
                }
            } else {
                FileHandle.standardError.write(Data("warning: production mode ignores CLEARANCE_DEVELOPMENT_CLOCK_OFFSET_FILE.\n".utf8))
            }
        }
        var configuration = hub.configuration
        if let host = environment.string("--host", host) { configuration.host = host }
        if let port = try environment.int("--port", port, in: 0...65_535) { configuration.port = port }
        configuration.metrics = try metricsConfiguration(file: configuration.metrics)
        configuration.tls = try tls(file: configuration.tls)
        do {
            configuration.limits = try configuration.limits.applyingEnvironment(ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.message)
        }

        if appsFromDatabase {
            return (try Self.waitingForApps(hub, configuration: configuration, file: environment.string("--config", config)), notes, false)
        }

        var app = configuration.apps.first ?? HubAppConfiguration(id: "100001", key: "clearance-key", secret: "")
        if let appID = environment.string("--app-id", appID) { app.id = appID }
        if let key = environment.string("--key", key) { app.key = key }
        if let secret = try secrets.appSecret(reloading: keepingSecret != nil, rereading: { try resolveSecret(SecretInput(flag: "--secret", environment: "CLEARANCE_APP_SECRET"), secret, secretFile) }) {
            if !app.secret.isEmpty, app.secret != secret {
                FileHandle.standardError.write(Data("""
                    warning: the app secret given by --secret, --secret-file or CLEARANCE_APP_SECRET replaces the secret of the app \
                    \(app.id) in the configuration file, which differs: the file's is not used.\n
                    """.utf8))
            }
            app.secret = secret
        }
        var generatedSecret = false
        if app.secret.isEmpty, let keepingSecret {
            app.secret = keepingSecret
        } else if app.secret.isEmpty {
            app.secret = HubConfiguration.randomSecret()
            generatedSecret = true
        }
        if configuration.apps.isEmpty { configuration.apps = [app] } else { configuration.apps[0] = app }

        hub.configuration = configuration
        do {
            if development { try hub.validate() } else { try configuration.validate() }
            try configuration.tls?.validate()
        } catch {
            throw ValidationError(String(describing: error))
        }
        notes.insert(contentsOf: ["app id=\(app.id)", "app key=\(app.key)"], at: 0)
        if !app.id.allSatisfy({ $0.isASCII && $0.isNumber }) {
            notes.append("note: the official pusher Python library only accepts app ids made of digits")
        }
        return (hub, notes, generatedSecret)
    }

    /// The hub of `configuration` whose apps come from the database: it starts with those the
    /// database holds (none yet is fine). A configuration file that lists apps is refused: two
    /// places for the apps would be two chances to disagree.
    private static func waitingForApps(_ hub: DevelopmentHub, configuration: HubConfiguration, file: String?) throws -> DevelopmentHub {
        guard configuration.apps.isEmpty else {
            throw ValidationError("""
                \(file ?? "The configuration file") lists apps, and --apps-database reads them from the database: remove `apps` from the file \
                (add each app with `clearance apps add`), or serve without --apps-database.
                """)
        }
        var hub = hub
        hub.configuration = configuration
        hub.configuration.waitsForApps = true
        do {
            try hub.configuration.validate()
            try hub.configuration.tls?.validate()
        } catch {
            throw ValidationError(String(describing: error))
        }
        return hub
    }

    /// A generated app secret goes to `--generated-secret-file` (created with mode 0600), or else
    /// once to standard error with a warning: never to standard output, which logs and pipes keep.
    /// (A hub that starts without a secret given is a trial run: one that serves real apps is
    /// given its secrets, and its logs hold none of them.)
    private func announceGenerated(secret: String, appID: String) throws {
        if let path = environment.string("--generated-secret-file", generatedSecretFile) {
            let created = FileManager.default.createFile(atPath: path, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600])
            guard created else { throw ValidationError("--generated-secret-file: cannot write '\(path)'.") }
            Self.say("app secret generated: written to \(path)")
        } else {
            FileHandle.standardError.write(Data("""
                warning: no app secret was given: generated app secret=\(secret) for the app \(appID), shown this once; give \
                --generated-secret-file PATH to have it written to a file instead, or --secret-file to choose it.\n
                """.utf8))
        }
    }

    /// The metrics endpoint: `--metrics-port`/`--metrics-host`, else `CLEARANCE_METRICS_PORT`/
    /// `CLEARANCE_METRICS_HOST`, else the file's `metrics`; nil (no metrics port) when no port
    /// is given anywhere. A variable that is not a port is an error naming it.
    private func metricsConfiguration(file: HubMetricsConfiguration?) throws -> HubMetricsConfiguration? {
        let environment = ProcessInfo.processInfo.environment
        var port = metricsPort
        if port == nil, let text = environment["CLEARANCE_METRICS_PORT"], !text.isEmpty {
            guard let value = Int(text), (0...65_535).contains(value) else {
                throw ValidationError("CLEARANCE_METRICS_PORT is '\(text)': give a port number (0…65535; 0 picks a free one).")
            }
            port = value
        }
        let host = metricsHost ?? environment["CLEARANCE_METRICS_HOST"].flatMap { $0.isEmpty ? nil : $0 }
        guard let port = port ?? file?.port else {
            if host != nil { throw ValidationError("--metrics-host (or CLEARANCE_METRICS_HOST) needs a metrics port: give --metrics-port.") }
            return nil
        }
        return HubMetricsConfiguration(host: host ?? file?.host ?? "127.0.0.1", port: port)
    }

    /// The development members (`users`, `pugpig`, `corsCredentials`) the file at `url` sets.
    private static func developmentMembers(in url: URL) -> [String] {
        guard let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [] }
        return HubConfiguration.developmentMembers.filter { object[$0] != nil }
    }

    /// Prints the backplane's state changes: `backplane connected node=…` once it links to the
    /// cluster (again), `backplane unavailable: …` when it loses the database; sets
    /// `clearance_backplane_connected` to match.
    private static func reportBackplane(_ cluster: PostgresCluster, metrics: HubMetrics) {
        metrics.bridgeBackplaneDrops { cluster.droppedMessages }
        let node = cluster.nodeID
        let database = cluster.configuration.description
        Task {
            for await state in cluster.states {
                switch state {
                case .connected:
                    metrics.backplaneConnected(true)
                    say("backplane connected node=\(node) database=\(database)")
                case let .unavailable(reason):
                    metrics.backplaneConnected(false)
                    say("backplane unavailable: \(reason)")
                case .connecting, .stopped: metrics.backplaneConnected(false)
                }
            }
        }
    }

    /// One line on stdout, written at once (stdout may be a pipe read by another program).
    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
