import Clearance
import ClearanceWire
import HTTPTypes

/// The client's identity at the authorization server: its id, its secret (confidential
/// clients) and how it presents them.
///
/// Its `description` never shows the secret.
public struct OAuth2Client: Sendable, Hashable, Codable {
    /// The client id (PodioKit's API key).
    public var id: String
    /// The client secret, for confidential clients. Secret.
    public var secret: String?
    /// How the id and secret are sent.
    public var authentication: ClientAuthenticationMethod

    /// - Parameters:
    ///   - id: The client id.
    ///   - secret: The client secret; `nil` for a public client.
    ///   - authentication: How to send them; defaults to HTTP Basic when there is a secret, `none` otherwise.
    public init(id: String, secret: String? = nil, authentication: ClientAuthenticationMethod? = nil) {
        self.id = id
        self.secret = secret
        self.authentication = authentication ?? (secret == nil ? .none : .clientSecretBasic)
    }

    /// The `Authorization` header value for `client_secret_basic`: `Basic base64(enc(id):enc(secret))`
    /// where `enc` is form-urlencoding (RFC 6749 §2.3.1 and Appendix B). Secret: never log it.
    public var basicAuthorization: String {
        let user = PercentEncoding.formEncode(id)
        let password = PercentEncoding.formEncode(secret ?? "")
        // The encoded id cannot contain ':' (it is %3A), so this cannot throw.
        return (try? Credential.basic(user: user, password: password).authorizationValue) ?? ""
    }

    /// Adds the client authentication to a request: a header for Basic, body fields otherwise.
    func authenticate(_ request: inout HTTPRequest, fields: inout [(name: String, value: String)]) throws(OAuth2Error) {
        switch authentication {
        case .clientSecretBasic:
            guard let secret, !secret.isEmpty else {
                throw .misconfigured(reason: "client_secret_basic needs a client secret")
            }
            request.headerFields[.authorization] = basicAuthorization
        case .clientSecretPost:
            guard let secret, !secret.isEmpty else {
                throw .misconfigured(reason: "client_secret_post needs a client secret")
            }
            fields.append(("client_id", id))
            fields.append(("client_secret", secret))
        case .none:
            fields.append(("client_id", id))
        }
    }
}

extension OAuth2Client: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "OAuth2Client(id: \(id), secret: \(secret == nil ? "none" : Redactor.mask), authentication: \(authentication.rawValue))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "secret": secret == nil ? "none" : Redactor.mask, "authentication": authentication], displayStyle: .struct)
    }
}
