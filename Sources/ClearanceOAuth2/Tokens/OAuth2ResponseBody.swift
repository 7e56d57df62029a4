import Clearance
import Foundation
import HTTPTypes

/// Reads the JSON body every OAuth 2.0 endpoint answers with, and turns error answers into
/// ``OAuth2Error``s: an `error` member first (whatever the status), then 5xx, then any other
/// non-2xx status.
enum OAuth2ResponseBody {
    /// The body as a JSON object, or nil when it is not one (and the status is 2xx).
    static func object(_ response: HTTPResponse, body: Data, secrets: [String]) throws(OAuth2Error) -> [String: Any]? {
        let status = response.status.code
        let object = body.isEmpty ? nil : (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        if let object, let code = object["error"] as? String {
            throw .server(OAuth2ServerError(
                code: code, description: object["error_description"] as? String, uri: object["error_uri"] as? String,
                httpStatus: status, secrets: secrets, response: HTTPErrorResponse(response, body: body, masking: secrets)))
        }
        if status >= 500 {
            throw .serverUnavailable(HTTPErrorResponse(response, body: body, masking: secrets))
        }
        guard (200..<300).contains(status) else {
            throw .badResponse(HTTPErrorResponse(response, body: body, masking: secrets), reason: "an HTTP error status without an OAuth error")
        }
        return object
    }
}
