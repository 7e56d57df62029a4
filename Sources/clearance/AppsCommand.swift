import ArgumentParser
import ClearanceServer
import ClearanceServerPostgres
import Foundation
import Logging

/// `clearance apps`: the apps of hubs run with `clearance serve --apps-database`, kept in
/// PostgreSQL. Every running hub applies a change within about a second, with no SIGHUP.
struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Add, list, show, change, rotate, disable, enable and remove the apps kept in PostgreSQL (clearance serve --apps-database).",
        discussion: """
            Every command takes --database (the URL hubs get as --apps-database; also --database-file, \
            CLEARANCE_APPS_DATABASE_URL) and, to read or write secrets, the apps key (--apps-key-file, --apps-key -, \
            CLEARANCE_APPS_KEY): the secrets, master keys and webhook targets are stored sealed with it. list, \
            disable, enable and remove need no key. No command prints a secret, except add (when it generates one) \
            and rotate-secret, once. Each running hub applies a change within about a second: an app removed or \
            re-keyed closes its connections with 4001, one disabled with 4003.
            """,
        subcommands: [
            AppsAddCommand.self, AppsListCommand.self, AppsShowCommand.self, AppsSetCommand.self,
            AppsRotateSecretCommand.self, AppsDisableCommand.self, AppsEnableCommand.self, AppsRemoveCommand.self,
        ]
    )
}

/// The options every `clearance apps` command shares: the database and the apps key.
struct AppsOptions: ParsableArguments {
    @Option(help: """
        The apps database: postgres://USER[:PASSWORD]@HOST:PORT/DATABASE (optional ?sslmode=require, ?namespace=NAME), \
        as given to clearance serve --apps-database; - reads it from standard input. Also --database-file or CLEARANCE_APPS_DATABASE_URL.
        """)
    var database: String?

    @Option(name: .customLong("database-file"), help: "A file holding the database URL. Also CLEARANCE_APPS_DATABASE_FILE.")
    var databaseFile: String?

    @Option(name: .customLong("apps-key"), help: """
        The key the apps' secrets are sealed with (at least 32 characters), the hubs' --apps-key; - reads it from standard input. \
        Also --apps-key-file or CLEARANCE_APPS_KEY.
        """)
    var appsKey: String?

    @Option(name: .customLong("apps-key-file"), help: "A file holding the apps key. Also CLEARANCE_APPS_KEY_FILE.")
    var appsKeyFile: String?

    /// Runs `body` on the opened store, then closes it; a library error ends the command with
    /// its one-line message and status 1.
    func withStore(needsKey: Bool, _ body: (PostgresAppStore) async throws(PostgresAppsError) -> Void) async throws {
        if [database, appsKey].filter({ $0 == "-" }).count > 1 {
            throw ValidationError("Only one of --database and --apps-key can come from standard input.")
        }
        let input = AppsDatabaseInput(flag: "--database", url: database, urlFile: databaseFile, key: appsKey, keyFile: appsKeyFile)
        guard let configuration = try input.resolve(needsKey: needsKey) else {
            throw ValidationError("Give the apps database: --database URL, --database-file PATH or CLEARANCE_APPS_DATABASE_URL.")
        }
        var logger = Logger(label: "clearance.apps")
        logger.logLevel = .critical
        let store: PostgresAppStore
        do {
            store = try await PostgresAppStore.open(configuration, logger: logger)
        } catch {
            throw CommandFailure.exitCode(error)
        }
        do {
            try await body(store)
        } catch {
            await store.close()
            throw CommandFailure.exitCode(error)
        }
        await store.close()
    }

    /// Runs a command's `body`; a usage problem (a missing option, members that do not validate)
    /// ends it with one line, `error: <message>`, on standard error and status 1, as a library
    /// error does: never a usage screen that buries the reason.
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as ValidationError {
            FileHandle.standardError.write(Data("error: \(error.message.replacingOccurrences(of: "\n", with: " "))\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Writes one line to standard output.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
