import Clearance
import ClearanceServer

/// Why the apps database, or one app in it, cannot be used. Messages never contain a secret, a
/// password or the apps key.
public enum PostgresAppsError: ClearanceError, Equatable {
    /// The apps database URL is not usable.
    case invalidURL(reason: String)
    /// The apps key is shorter than ``PostgresAppsKey/minimumLength``.
    case keyTooShort(minimum: Int)
    /// The command needs the apps key (it reads or writes secrets) and none was given.
    case keyNeeded
    /// The database cannot be reached or refused a statement (`reason` says which, without secrets).
    case database(reason: String)
    /// The database's schema is newer than this version of Clearance knows: a newer hub migrated it.
    case newerSchema(part: String, found: Int, known: Int)
    /// No app has this id.
    case noSuchApp(String)
    /// An app with this id exists already.
    case appExists(String)
    /// Another app has this key.
    case keyTaken(String)
    /// The app's secrets were sealed with another apps key (`keyID` names it; `expected` is this key's).
    case sealedWithAnotherKey(appID: String, keyID: String, expected: String)
    /// The app's sealed secrets do not open with this key: changed by hand, or copied from another app's row.
    case sealedSecretsDoNotOpen(appID: String)
    /// The app's row does not make a valid app: `reason` names the member and why.
    case invalidApp(appID: String, reason: HubConfigurationError)
    /// The app's settings are not a JSON object of an app's members (`reason` says where).
    case malformedSettings(appID: String, reason: String)

    public static let codeDomain = "apps.postgres"

    /// The configuration error of ``invalidApp(appID:reason:)``.
    public var underlying: (any Error)? {
        if case let .invalidApp(_, reason) = self { return reason }
        return nil
    }

    /// Each case's code and message (which never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case let .invalidURL(reason): .init(.invalidURL, "The apps database URL is not usable: \(reason)")
        case let .keyTooShort(minimum):
            .init(.keyTooShort, "The apps key must be at least \(minimum) characters long: make one with `openssl rand -base64 48`.")
        case .keyNeeded: .init(.keyNeeded, "The apps key is needed to read or write app secrets: give --apps-key-file, --apps-key - or CLEARANCE_APPS_KEY.")
        case let .database(reason): .init(.database, "The apps database is not usable: \(reason)")
        case let .newerSchema(part, found, known):
            .init(.newerSchema, "The database holds the \(part) schema at version \(found), newer than this Clearance knows (\(known)): "
                + "a newer version migrated it. Run that version (or newer), or restore the backup taken before the upgrade.")
        case let .noSuchApp(id): .init(.noSuchApp, "No app has the id \(id).")
        case let .appExists(id): .init(.appExists, "An app with the id \(id) exists already (change it with `clearance apps set`).")
        case let .keyTaken(key): .init(.keyTaken, "Another app has the key \(key): an app key must be unique.")
        case let .sealedWithAnotherKey(appID, keyID, expected):
            .init(.sealedWithAnotherKey, "The app \(appID) was sealed with another apps key (key id \(keyID); this one's is \(expected)): "
                + "give the key it was sealed with, or set its secrets again with `clearance apps rotate-secret`.")
        case let .sealedSecretsDoNotOpen(appID):
            .init(.sealedSecretsDoNotOpen, "The sealed secrets of the app \(appID) do not open: changed by hand or copied from another app's row. "
                + "Set them again with `clearance apps rotate-secret`.")
        case let .invalidApp(appID, reason): .init(.invalidApp, "The app \(appID) is not valid: \(reason.message)")
        case let .malformedSettings(appID, reason): .init(.malformedSettings, "The settings of the app \(appID) are not usable: \(reason).")
        }
    }

    /// Stable machine-readable codes; ``qualifiedCode`` is `apps.postgres.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case invalidURL, keyTooShort, keyNeeded, database, newerSchema, noSuchApp, appExists, keyTaken
        case sealedWithAnotherKey, sealedSecretsDoNotOpen, invalidApp, malformedSettings
    }
}
