import Clearance
import Foundation
import HTTPTypes

/// The device authorization response (RFC 8628 §3.2): what to show the user, and what to poll with.
///
/// Its `description` never shows the device code.
public struct DeviceAuthorization: Sendable {
    /// The device verification code, sent when polling. Secret.
    public let deviceCode: String
    /// The code the user types at ``verificationURI``. Show it; do not log it.
    public let userCode: String
    /// Where the user goes to approve.
    public let verificationURI: URL
    /// The verification URI with the user code in it, if the server gave one (for a QR code).
    public let verificationURIComplete: URL?
    /// How long the codes stay valid.
    public let expiresIn: Duration
    /// The polling interval the server asked for (RFC 8628: 5 s when it does not say).
    public let interval: Duration
    /// When the response arrived, on the session clock's monotonic reading.
    let receivedAt: Duration

    /// What to show the user: no device code.
    public var prompt: DeviceAuthorizationPrompt {
        DeviceAuthorizationPrompt(userCode: userCode, verificationURI: verificationURI, verificationURIComplete: verificationURIComplete, expiresIn: expiresIn)
    }

    static func parse(_ response: HTTPResponse, body: Data, receivedAt: Duration, secrets: [String]) throws(OAuth2Error) -> DeviceAuthorization {
        let answer = HTTPErrorResponse(response, body: body, masking: secrets, keepsBody: false)
        guard let object = try OAuth2ResponseBody.object(response, body: body, secrets: secrets) else {
            throw .badResponse(answer, reason: "the device authorization response is not a JSON object")
        }
        guard let deviceCode = object["device_code"] as? String, !deviceCode.isEmpty,
            let userCode = object["user_code"] as? String, !userCode.isEmpty
        else {
            throw .badResponse(answer, reason: "the device authorization response lacks device_code or user_code")
        }
        // RFC 8628 says verification_uri; early drafts and Google say verification_url.
        guard let uriText = (object["verification_uri"] ?? object["verification_url"]) as? String, let uri = URL(string: uriText) else {
            throw .badResponse(answer, reason: "the device authorization response lacks verification_uri")
        }
        let complete = (object["verification_uri_complete"] as? String).flatMap(URL.init(string:))
        let expiresIn = TokenResponse.lifetime(object["expires_in"]) ?? .seconds(600)
        let interval = TokenResponse.lifetime(object["interval"]).map { max($0, .seconds(1)) } ?? .seconds(5)
        return DeviceAuthorization(
            deviceCode: deviceCode, userCode: userCode, verificationURI: uri, verificationURIComplete: complete,
            expiresIn: expiresIn, interval: interval, receivedAt: receivedAt)
    }
}

extension DeviceAuthorization: SecretRedacting {
    public var description: String {
        "DeviceAuthorization(verificationURI: \(verificationURI), expiresIn: \(expiresIn), interval: \(interval), deviceCode: \(Redactor.mask))"
    }
}
