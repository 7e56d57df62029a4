import ClearanceServer
import Foundation

extension HubAppConfiguration {
    /// The app's members as a configuration file writes them (a JSON object), for the apps table
    /// and `clearance apps`.
    package var members: [String: Any] {
        (try? JSONEncoder().encode(self)).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }

    /// The app `members` make, decoded as a configuration file's app is (an unknown member is
    /// named, with the closest known name); `appID` names it in the errors.
    /// - Throws: ``PostgresAppsError/invalidApp(appID:reason:)`` or ``PostgresAppsError/malformedSettings(appID:reason:)``.
    package init(members: [String: Any], appID: String) throws(PostgresAppsError) {
        guard let data = try? JSONSerialization.data(withJSONObject: members) else {
            throw .malformedSettings(appID: appID, reason: "they cannot be written as JSON")
        }
        do {
            self = try JSONDecoder().decode(HubAppConfiguration.self, from: data)
        } catch let error as HubConfigurationError {
            throw .invalidApp(appID: appID, reason: error)
        } catch let error as DecodingError {
            throw .malformedSettings(appID: appID, reason: HubConfiguration.describe(error, in: data))
        } catch {
            throw .malformedSettings(appID: appID, reason: "they are not an app's members")
        }
    }
}
