import ClearanceHTTP
import ClearanceWire
import Foundation
import HTTPTypes

/// A man in the middle: changes the `sub` in the payload of every ID token the token endpoint
/// answers with, keeping the signature.
struct TamperingTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let (response, data) = try await AsyncHTTPClientHTTPTransport.shared.send(request, body: body)
        guard request.path?.hasSuffix("/oauth/token") == true, var object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let idToken = object["id_token"] as? String
        else { return (response, data) }
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]),
              var claims = try JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { return (response, data) }
        claims["sub"] = "user:mallory@example.com"
        let forged = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        object["id_token"] = [parts[0], forged, parts[2]].joined(separator: ".")
        return (response, try JSONSerialization.data(withJSONObject: object))
    }
}
