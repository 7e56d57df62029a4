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
                httpStatus: status, secrets: secrets))
        }
        if status >= 500 {
            throw .serverUnavailable(status: status, retryAfter: retryAfter(response))
        }
        guard (200..<300).contains(status) else {
            throw .badResponse(status: status, reason: "an HTTP error status without an OAuth error")
        }
        return object
    }

    /// The `Retry-After` header as a delay, when it is given in seconds (the HTTP-date form is ignored).
    static func retryAfter(_ response: HTTPResponse) -> Duration? {
        guard let value = response.headerFields[.retryAfter], let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else {
            return nil
        }
        return .seconds(min(seconds, 3600))
    }
}
