import ArgumentParser
import Clearance
import ClearanceServer
import Foundation

/// An app's members as `clearance apps add --settings` and `clearance apps set` take them: a
/// JSON object with the members of an app of the configuration file, merged over the app's
/// (a member given replaces it whole: `webhooks` is the new list), then decoded and checked as
/// the file's apps are (an unknown member is named, with the closest known name).
enum AppMembers {
    /// `app` with the members of `json` (text, or `-` for standard input).
    static func merge(_ json: String, into app: HubAppConfiguration) throws -> HubAppConfiguration {
        let text = json == "-" ? String(decoding: SecretInput.trimmingNewline(FileHandle.standardInput.readDataToEndOfFile()), as: UTF8.self) : json
        guard let given = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw ValidationError("The members are not a JSON object: give them as '{\"maxConnections\": 500}'.")
        }
        if let id = given["id"], id as? String != app.id {
            throw ValidationError("The members change the app's id, which cannot change: add an app with the new id, then remove this one.")
        }
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(app)) as? [String: Any] ?? [:]
        object.merge(given) { _, new in new }
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            return try JSONDecoder().decode(HubAppConfiguration.self, from: data)
        } catch let error as HubConfigurationError {
            throw ValidationError(error.message)
        } catch let error as DecodingError {
            throw ValidationError("The members are not usable: \(HubConfiguration.describe(error, in: data)).")
        }
    }

    /// `app` as JSON for `clearance apps show`: its secret, master key, webhook URLs' paths and
    /// queries and header values replaced by `<redacted>`.
    static func shown(_ app: HubAppConfiguration) throws -> String {
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(app)) as? [String: Any] ?? [:]
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
