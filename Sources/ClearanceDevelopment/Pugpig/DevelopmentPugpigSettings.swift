import ClearanceServer
import Foundation

/// The `pugpig` member of a development configuration file: how the development Pugpig
/// endpoints (``DevelopmentPugpigServer``) sign tokens and edition passwords, and what content
/// they protect. Every member is optional:
/// ```json
/// "pugpig": {"secret": "…", "passwordScheme": "hmac-sha256", "passwordLifetime": 3600,
///            "tokenLifetime": 3600, "renewalWindow": 2592000, "contentDirectory": "./content",
///            "edgeHeader": true, "globalAuthPassword": false}
/// ```
/// Users' entitlements are on the users themselves (``DevelopmentUser/entitlements``).
public struct DevelopmentPugpigSettings: Sendable, Hashable, Codable {
    /// The key of tokens, edition passwords and edge tokens (generated at start when absent:
    /// tokens then do not survive a restart).
    public var secret: String?
    /// How edition passwords are made (HMAC-SHA256 with an expiry by default).
    public var passwordScheme: EditionPasswordScheme
    /// Seconds an edition password stays valid (``EditionPasswordScheme/hmacSHA256`` only).
    public var passwordLifetime: TimeInterval
    /// Seconds before a token is `stale` (must be renewed).
    public var tokenLifetime: TimeInterval
    /// Seconds after its issue during which a stale token can still be renewed.
    public var renewalWindow: TimeInterval
    /// A directory served under `/content/{product}/…` (`<directory>/<product>/<path>`).
    public var contentDirectory: String?
    /// Whether edition credentials carry an extra header (`X-Clearance-Edge`) that content
    /// requests must echo, as CDN edge tokens are.
    public var edgeHeader: Bool
    /// Whether sign-in answers carry a `global_auth_password`.
    public var globalAuthPassword: Bool

    /// Settings with the defaults.
    public init(
        secret: String? = nil, passwordScheme: EditionPasswordScheme = .hmacSHA256, passwordLifetime: TimeInterval = 3600,
        tokenLifetime: TimeInterval = 3600, renewalWindow: TimeInterval = 30 * 24 * 3600, contentDirectory: String? = nil,
        edgeHeader: Bool = true, globalAuthPassword: Bool = false
    ) {
        self.secret = secret
        self.passwordScheme = passwordScheme
        self.passwordLifetime = passwordLifetime
        self.tokenLifetime = tokenLifetime
        self.renewalWindow = renewalWindow
        self.contentDirectory = contentDirectory
        self.edgeHeader = edgeHeader
        self.globalAuthPassword = globalAuthPassword
    }

    /// Checks the settings: a non-empty secret when given, positive lifetimes, an existing content directory.
    public func validate() throws(DevelopmentUserError) {
        if let secret, secret.isEmpty { throw .invalidPugpigSettings(reason: "the secret is empty") }
        for (name, value) in [("passwordLifetime", passwordLifetime), ("tokenLifetime", tokenLifetime), ("renewalWindow", renewalWindow)] where !(value > 0) {
            throw .invalidPugpigSettings(reason: "\(name) must be a positive number of seconds")
        }
        var isDirectory: ObjCBool = false
        if let contentDirectory, !(FileManager.default.fileExists(atPath: contentDirectory, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw .invalidPugpigSettings(reason: "the content directory \(contentDirectory) does not exist")
        }
    }

    /// The members of the `pugpig` object.
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case secret, passwordScheme, passwordLifetime, tokenLifetime, renewalWindow, contentDirectory, edgeHeader, globalAuthPassword
    }

    /// Decodes the members present and keeps the default for the others.
    /// - Throws: `HubConfigurationError.unknownMember` for a member the settings do not have, or a
    ///   decoding error.
    public init(from decoder: any Decoder) throws {
        try ConfigurationMembers(CodingKeys.self).check(decoder)
        let defaults = DevelopmentPugpigSettings()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        secret = try container.decodeIfPresent(String.self, forKey: .secret)
        passwordScheme = try container.decodeIfPresent(EditionPasswordScheme.self, forKey: .passwordScheme) ?? defaults.passwordScheme
        passwordLifetime = try container.decodeIfPresent(TimeInterval.self, forKey: .passwordLifetime) ?? defaults.passwordLifetime
        tokenLifetime = try container.decodeIfPresent(TimeInterval.self, forKey: .tokenLifetime) ?? defaults.tokenLifetime
        renewalWindow = try container.decodeIfPresent(TimeInterval.self, forKey: .renewalWindow) ?? defaults.renewalWindow
        contentDirectory = try container.decodeIfPresent(String.self, forKey: .contentDirectory)
        edgeHeader = try container.decodeIfPresent(Bool.self, forKey: .edgeHeader) ?? defaults.edgeHeader
        globalAuthPassword = try container.decodeIfPresent(Bool.self, forKey: .globalAuthPassword) ?? defaults.globalAuthPassword
    }
}
