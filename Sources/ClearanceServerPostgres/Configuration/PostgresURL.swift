import Clearance
import ClearanceWire
import Foundation
import PostgresNIO

/// A `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?…]` URL read into a connection's
/// configuration: `sslmode` (`disable`, the default, or `require`) and `namespace` (the tables'
/// prefix, `clearance_backplane` by default) are read here, the other query items are handed
/// back for the caller to read (the backplane's `queue_limit`).
struct PostgresURL: Sendable {
    /// Why a URL is not usable, in words that never contain its password.
    struct Problem: Error {
        let reason: String
    }

    var connection: PostgresConnection.Configuration
    /// The `namespace` item, or `clearance_backplane`.
    var namespace = "clearance_backplane"
    /// The query items other than `sslmode` and `namespace`, in order.
    var items: [(name: String, value: String)]

    init(_ text: String) throws(Problem) {
        guard let components = URLComponents(string: text), let scheme = components.scheme else {
            throw Problem(reason: "expected postgres://USER@HOST:PORT/DATABASE.")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw Problem(reason: "the scheme must be postgres or postgresql, not \(scheme).")
        }
        guard let host = components.host, !host.isEmpty else { throw Problem(reason: "the host is missing.") }
        // Decoded once, from the text as written (`user`/`password` are already decoded: decoding
        // them again would change a password holding `%`).
        guard let user = components.percentEncodedUser.flatMap({ PercentEncoding.decode($0) }), !user.isEmpty else {
            throw Problem(reason: "the user is missing (postgres://USER@HOST/DATABASE).")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw Problem(reason: "the path must name one database (postgres://USER@HOST/DATABASE).")
        }
        var password: String?
        if let written = components.percentEncodedPassword {
            guard let decoded = PercentEncoding.decode(written) else {
                throw Problem(reason: "the password is not valid percent-encoding.")
            }
            password = decoded
        }
        var tls = PostgresConnection.Configuration.TLS.disable
        items = []
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("sslmode", "disable"):
                tls = .disable
            case ("sslmode", "require"):
                do {
                    tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                } catch {
                    throw Problem(reason: "TLS cannot be set up: \(Redactor.describe(error)).")
                }
            case ("sslmode", let mode):
                throw Problem(reason: "sslmode must be disable or require, not \(mode).")
            case ("namespace", let value):
                namespace = value
            case (let name, let value):
                items.append((name, value))
            }
        }
        connection = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: password, database: database, tls: tls)
        connection.options.connectTimeout = .seconds(5)
    }

    /// `postgres://USER@HOST:PORT/DATABASE (namespace …)` for logs: never the password.
    static func describe(_ connection: PostgresConnection.Configuration, namespace: String) -> String {
        let place = connection.host.map { "\($0):\(connection.port ?? 5432)" } ?? (connection.unixSocketPath ?? "?")
        return "postgres://\(connection.username)@\(place)/\(connection.database ?? "") (namespace \(namespace))"
    }

    /// Whether `name` can prefix the tables: 1 to 40 lower-case letters, digits or `_`, starting
    /// with a letter (it is written into SQL as it is).
    static func isNamespace(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let allowed = bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
        guard (1...40).contains(bytes.count), allowed, let first = bytes.first else { return false }
        return first >= 0x61 && first <= 0x7A
    }
}
