import ArgumentParser
import ClearanceServerPostgres
import Foundation

/// Where `clearance serve --apps-database` and `clearance apps --database` find the apps: the
/// URL from its flag (a value, or `-` for standard input), its file flag,
/// `CLEARANCE_APPS_DATABASE_URL` or `CLEARANCE_APPS_DATABASE_FILE`; the apps key from
/// `--apps-key` (`-`: standard input), `--apps-key-file`, `CLEARANCE_APPS_KEY` or `CLEARANCE_APPS_KEY_FILE`.
struct AppsDatabaseInput {
    /// The URL's flag: `--apps-database` (serve) or `--database` (apps).
    let flag: String
    let url: String?
    let urlFile: String?
    let key: String?
    let keyFile: String?

    /// The configuration, or nil when no URL is given anywhere.
    /// - Parameter needsKey: whether a missing key is an error (it is for the hub and the
    ///   commands that read or write secrets).
    func resolve(needsKey: Bool) throws -> PostgresAppsConfiguration? {
        let hasPassword = url.flatMap { URLComponents(string: $0)?.password } != nil
        let urlInput = SecretInput(flag: flag, environment: "CLEARANCE_APPS_DATABASE_URL")
        guard let text = try urlInput.resolve(value: url, file: urlFile, fileVariable: "CLEARANCE_APPS_DATABASE_FILE", warnsOnCommandLine: hasPassword) else {
            return nil
        }
        let keyInput = SecretInput(flag: "--apps-key", environment: "CLEARANCE_APPS_KEY")
        let secret = try keyInput.resolve(value: key, file: keyFile, fileVariable: "CLEARANCE_APPS_KEY_FILE")
        if secret == nil, needsKey {
            throw ValidationError("""
                The apps' secrets are sealed with the apps key, the same for every hub and for `clearance apps`: give it with \
                --apps-key-file, --apps-key - (standard input) or CLEARANCE_APPS_KEY. Make one with `openssl rand -base64 48 > apps.key`.
                """)
        }
        do {
            return try PostgresAppsConfiguration(url: text, key: secret.map { secret throws(PostgresAppsError) in try PostgresAppsKey(secret: secret) })
        } catch {
            throw ValidationError(error.message)
        }
    }
}
