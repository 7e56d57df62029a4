import ClearanceSigning
import Foundation

/// Everything a hub needs: where to listen, the apps it serves, and its limits.
///
/// A JSON configuration file has the same shape (members other than `apps` are optional):
/// ```json
/// {
///   "host": "127.0.0.1", "port": 6001,
///   "apps": [{"id": "app-1", "key": "key-1", "secret": "…", "encryptionMasterKey": "<base64 of 32 bytes>"}],
///   "limits": {"activityTimeout": 120, "maxPresenceMembers": 100},
///   "metrics": {"host": "127.0.0.1", "port": 9090},
///   "tls": {"certificate": "/etc/clearance/hub.pem", "key": "/etc/clearance/hub.key"}
/// }
/// ```
/// A member that an object of the file does not know is refused
/// (``HubConfigurationError/unknownMember(path:suggestion:known:)``, naming it and the closest
/// known name): a misspelt `"alowedOrigins"` would otherwise leave every origin allowed without a
/// word. The top level also takes the development members (``developmentMembers``), which
/// `DevelopmentHub` reads from the same object.
/// `description` never shows secrets.
public struct HubConfiguration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The address to bind. Default `127.0.0.1`.
    public var host: String
    /// The port to bind; 0 picks a free one. Default 6001.
    public var port: Int
    /// The apps served.
    public var apps: [HubAppConfiguration]
    /// Protocol limits and timers.
    public var limits: HubLimits
    /// Where `/metrics`, `/health` and `/ready` are served (``HubMetricsService``); nil (the
    /// default): nowhere.
    public var metrics: HubMetricsConfiguration?
    /// The certificate and key to serve `wss://` and `https://` with; nil (the default): plain
    /// `ws://` and `http://`, for loopback or behind a proxy that terminates TLS.
    public var tls: HubTLSConfiguration?
    /// Whether the apps come from elsewhere (a database, `clearance serve --apps-database`): such
    /// a hub may start with no app and waits for them. Not a member of the file. Default `false`.
    public var waitsForApps = false

    /// How many apps the hub-wide budgets are shared among: the apps served, and at least two
    /// for a hub whose apps come from elsewhere (``waitsForApps``), which serves many tenants
    /// even while it has one: each app gets its part (``HubConnectionLimits/appShare``) from the
    /// first, so an app that came first never holds what the next one needs.
    public var sharingApps: Int { waitsForApps ? max(2, apps.count) : apps.count }

    /// The members a configuration is encoded with (``waitsForApps`` is not one).
    private enum CodingKeys: String, CodingKey {
        case host, port, apps, limits, metrics, tls
    }

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1",
        port: Int = 6001,
        apps: [HubAppConfiguration],
        limits: HubLimits = HubLimits(),
        metrics: HubMetricsConfiguration? = nil,
        tls: HubTLSConfiguration? = nil
    ) {
        self.host = host
        self.port = port
        self.apps = apps
        self.limits = limits
        self.metrics = metrics
        self.tls = tls
    }

    /// The top-level members a configuration file may have for the development hub
    /// (`DevelopmentHub`: `users`, `pugpig`, `corsCredentials`); the hub itself does not read them,
    /// and `clearance serve` without `--development` warns that it ignores them.
    public static let developmentMembers = ["users", "pugpig", "corsCredentials"]

    /// Decodes a configuration; everything but `apps` has a default.
    /// - Throws: ``HubConfigurationError/unknownMember(path:suggestion:known:)`` for a member that
    ///   neither the configuration nor ``developmentMembers`` has (in any of its objects), or a
    ///   decoding error.
    public init(from decoder: any Decoder) throws {
        let members: [ConfigurationMember<Self>] = [
            .optional("host", \.host), .optional("port", \.port), .optional("apps", \.apps), .optional("limits", \.limits),
            .optional("metrics", \.metrics), .optional("tls", \.tls),
        ]
        self = try ConfigurationMember.decode(members, from: decoder, startingFrom: Self(apps: []), and: Self.developmentMembers)
    }

    /// Reads a JSON configuration file and, unless `validating` is false (for callers that
    /// complete it first, like `clearance serve` with its flags), validates it.
    ///
    /// - Throws: ``HubConfigurationError/unreadableFile(path:)``,
    ///   ``HubConfigurationError/malformedFile(path:reason:)``,
    ///   ``HubConfigurationError/unknownMember(path:suggestion:known:)`` or a validation error.
    public static func load(contentsOf url: URL, validating: Bool = true) throws(HubConfigurationError) -> HubConfiguration {
        let configuration: HubConfiguration = try decodeFile(url)
        if validating { try configuration.validate() }
        return configuration
    }

    /// Decodes a JSON file as `T` (a hub configuration, or one that embeds it).
    /// - Throws: ``HubConfigurationError/unreadableFile(path:)``,
    ///   ``HubConfigurationError/malformedFile(path:reason:)``, or the ``HubConfigurationError`` a
    ///   type of the configuration throws as it decodes (an unknown member, say) as it is.
    public static func decodeFile<T: Decodable>(_ url: URL, as type: T.Type = T.self) throws(HubConfigurationError) -> T {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .unreadableFile(path: url.path)
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as HubConfigurationError {
            throw error
        } catch let error as DecodingError {
            throw .malformedFile(path: url.path, reason: Self.describe(error, in: data))
        } catch {
            throw .malformedFile(path: url.path, reason: "not valid JSON")
        }
    }

    /// Checks the configuration: at least one app, unique app ids and keys, usable
    /// credentials, usable webhook targets and allowed origins, limits in range.
    public func validate() throws(HubConfigurationError) {
        guard !apps.isEmpty || waitsForApps else { throw .noApps }
        guard (0...65_535).contains(port) else { throw .invalidPort(port) }
        var ids = Set<String>()
        var keys = Set<String>()
        for app in apps {
            guard ids.insert(app.id).inserted else { throw .duplicateAppID(app.id) }
            guard keys.insert(app.key).inserted else { throw .duplicateAppKey(app.key) }
            try app.validate(limits: limits)
        }
        if let member = limits.firstInvalidMember() { throw .invalidLimit(member) }
        if let reason = limits.conflict() { throw .conflictingLimits(reason) }
        try metrics?.validate(hubHost: host, hubPort: port)
    }

    /// A new random secret: 32 lower-case hex characters (128 bits).
    public static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }

    /// A summary for logs, with secrets redacted.
    public var description: String {
        "HubConfiguration(host: \(host), port: \(port), apps: \(apps), limits: \(limits)\(metrics.map { ", metrics: \($0)" } ?? "")"
            + "\(tls.map { ", tls: \($0.certificate)" } ?? ""))"
    }

    /// Where and how `error` (from decoding `data`) went wrong, in words for an operator:
    /// `missing apps[0].key`, `wrong type at limits.maxConnections`, ….
    package static func describe(_ error: DecodingError, in data: Data) -> String {
        let path = ConfigurationMembers.path
        switch error {
        case let .keyNotFound(key, context):
            return "missing \(path(context.codingPath + [key]))"
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            return "wrong type at \(path(context.codingPath))"
        case let .dataCorrupted(context) where context.codingPath.isEmpty:
            // Foundation on Linux says "not valid JSON" (with no path) for a number too large for
            // its field as well: tell the two apart.
            guard (try? JSONSerialization.jsonObject(with: data)) != nil else { return "not valid JSON" }
            return "a value does not fit its field (a number too large, or not a whole number where one is expected)"
        case let .dataCorrupted(context):
            return "invalid value at \(path(context.codingPath))"
        @unknown default:
            return "not a valid configuration"
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
