import ClearanceServer
import Crypto
import Foundation

/// One row of `<namespace>_apps`: an app split into what an operator may read and edit by hand
/// (`settings`, a JSON object of the app's other members: limits, origins, history, `enabled`…)
/// and what no dump may reveal (`sealed`: the secret, the encryption master key and the webhook
/// targets, sealed with the apps key and bound to the namespace and the app's id).
struct StoredApp: Sendable, Equatable {
    let id: String
    let key: String
    /// The JSON object of the app's members other than ``sealedMembers`` and `id`, `key`.
    let settings: String
    /// Base64 of ChaChaPoly's box of the sealed members' JSON.
    let sealed: String
    /// The id of the apps key that sealed it (``PostgresAppsKey/id``).
    let keyID: String

    /// The members kept sealed, never in `settings`.
    static let sealedMembers = ["secret", "encryptionMasterKey", "webhooks"]

    /// What is sealed.
    private struct Secrets: Codable {
        var secret: String
        var encryptionMasterKey: String?
        var webhooks: [WebhookTarget]
    }

    init(id: String, key: String, settings: String, sealed: String, keyID: String) {
        self.id = id
        self.key = key
        self.settings = settings
        self.sealed = sealed
        self.keyID = keyID
    }

    /// `app` split and sealed with `appsKey` for the database of `namespace`.
    init(_ app: HubAppConfiguration, sealingWith appsKey: PostgresAppsKey, namespace: String) throws {
        let settings = app.members.filter { !(Self.sealedMembers + ["id", "key"]).contains($0.key) }
        let secrets = Secrets(secret: app.secret, encryptionMasterKey: app.encryptionMasterKey, webhooks: app.webhooks)
        let box = try ChaChaPoly.seal(
            JSONEncoder().encode(secrets), using: appsKey.key, authenticating: Self.associatedData(namespace: namespace, id: app.id))
        self.init(
            id: app.id, key: app.key,
            settings: String(decoding: try JSONSerialization.data(withJSONObject: settings, options: .sortedKeys), as: UTF8.self),
            sealed: box.combined.base64EncodedString(), keyID: appsKey.id)
    }

    /// The app this row holds, opened with `appsKey` and validated as a configuration file's app
    /// is (unknown members named, with the closest known name), under `limits`.
    /// - Throws: ``PostgresAppsError`` naming the app.
    func app(openingWith appsKey: PostgresAppsKey, namespace: String, limits: HubLimits) throws(PostgresAppsError) -> HubAppConfiguration {
        guard keyID == appsKey.id else { throw .sealedWithAnotherKey(appID: id, keyID: keyID, expected: appsKey.id) }
        guard let combined = Data(base64Encoded: sealed), let box = try? ChaChaPoly.SealedBox(combined: combined),
              let opened = try? ChaChaPoly.open(box, using: appsKey.key, authenticating: Self.associatedData(namespace: namespace, id: id)),
              let secrets = try? JSONSerialization.jsonObject(with: opened) as? [String: Any]
        else { throw .sealedSecretsDoNotOpen(appID: id) }
        guard let members = try? JSONSerialization.jsonObject(with: Data(settings.utf8)) as? [String: Any] else {
            throw .malformedSettings(appID: id, reason: "they are not a JSON object")
        }
        if let misplaced = members.keys.sorted().first(where: { (Self.sealedMembers + ["id", "key"]).contains($0) }) {
            throw .malformedSettings(appID: id, reason: "they hold \(misplaced), which is kept in its own column or sealed: change it with `clearance apps set`")
        }
        var object = members.merging(secrets) { settings, _ in settings }
        object["id"] = id
        object["key"] = key
        let app = try HubAppConfiguration(members: object, appID: id)
        do {
            try app.validate(limits: limits)
        } catch {
            throw .invalidApp(appID: id, reason: error)
        }
        return app
    }

    private static func associatedData(namespace: String, id: String) -> Data {
        Data("clearance-apps-v1\n\(namespace)\n\(id)".utf8)
    }
}
