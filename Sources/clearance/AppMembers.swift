import ArgumentParser
import Clearance
import ClearanceServer
import ClearanceServerPostgres
import Foundation

/// An app's members as `clearance apps add --settings` and `clearance apps set` take them: a
/// JSON object with the members of an app of the configuration file, merged over the app's
/// (a member given replaces it whole: `webhooks` is the new list), then decoded and checked as
/// the file's apps are (an unknown member is named, with the closest known name).
enum AppMembers {
    /// The members given as text, or `-` for standard input: a JSON object.
    static func read(_ json: String) throws -> Members {
        let text = json == "-" ? String(decoding: SecretInput.trimmingNewline(FileHandle.standardInput.readDataToEndOfFile()), as: UTF8.self) : json
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw ValidationError("The members are not a JSON object: give them as '{\"maxConnections\": 500}'.")
        }
        return Members(object: object)
    }

    /// The members of an app, as given (JSON's values).
    struct Members {
        let object: [String: Any]
    }

    /// `app` with `members` merged over its own, decoded as a file's app.
    static func merge(_ members: Members, into app: HubAppConfiguration) throws(PostgresAppsError) -> HubAppConfiguration {
        if let id = members.object["id"], id as? String != app.id {
            throw .malformedSettings(appID: app.id, reason: "they change the app's id, which cannot change: add an app with the new id, then remove this one")
        }
        return try HubAppConfiguration(members: app.members.merging(members.object) { _, new in new }, appID: app.id)
    }

    /// `app` as JSON for `clearance apps show`: its secret, master key, webhook URLs' paths and
    /// queries and header values replaced by `<redacted>`.
    static func shown(_ app: HubAppConfiguration) throws -> String {
        var object = app.members
        object["secret"] = Redactor.mask
        if app.encryptionMasterKey != nil { object["encryptionMasterKey"] = Redactor.mask }
        object["webhooks"] = try app.webhooks.map { target in
            var shown = try JSONSerialization.jsonObject(with: JSONEncoder().encode(target)) as? [String: Any] ?? [:]
            shown["url"] = target.redactedURL
            shown["headers"] = Dictionary(uniqueKeysWithValues: target.headers.keys.map { ($0, Redactor.mask) })
            return shown
        }
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]), as: UTF8.self)
    }
}
