import Clearance
import HTTPTypes

/// What a content request for one product carries (Pugpig's `requestCredentialsForProductIdentifier`):
/// HTTP Basic user id and password (RFC 7617, UTF-8) and extra headers (CDN or edge tokens,
/// cookies).
///
/// Secret: ``description``, ``debugDescription`` and reflection (`dump`) show the user id and
/// the header names only.
public struct ContentCredentials: Sendable, Hashable {
    /// The Basic user id.
    public var userID: String
    /// The Basic password (an edition password). Secret.
    public var password: String
    /// Extra headers for the content request. Their values are secret.
    public var headers: HTTPFields

    /// Creates credentials.
    public init(userID: String, password: String, headers: HTTPFields = [:]) {
        self.userID = userID
        self.password = password
        self.headers = headers
    }

    /// The Basic credential.
    /// - Throws: ``EntitlementError/unknown(reason:status:response:underlying:)`` when the user id holds a
    ///   colon, which RFC 7617 forbids.
    public func basicCredential() throws(EntitlementError) -> Credential {
        do {
            return try Credential.basic(user: userID, password: password)
        } catch {
            throw .unknown(reason: "the edition credentials' user id cannot be sent with HTTP Basic", underlying: error)
        }
    }

    /// Puts the Basic credential and the extra headers on `request`.
    public func apply(to request: inout HTTPRequest) throws(EntitlementError) {
        try basicCredential().apply(to: &request)
        for field in headers { request.headerFields[field.name] = field.value }
    }

    /// Removes what ``apply(to:)`` added (before a request leaves for another origin).
    public func remove(from request: inout HTTPRequest) {
        request.headerFields[.authorization] = nil
        for field in headers { request.headerFields[field.name] = nil }
    }
}

extension ContentCredentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        let names = headers.map(\.name.rawName)
        return "ContentCredentials(userID: \(userID), password: \(Redactor.mask)\(names.isEmpty ? "" : ", headers: \(names.map { "\($0): \(Redactor.mask)" }.joined(separator: ", "))"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["userID": userID, "password": Redactor.mask, "headerNames": headers.map(\.name.rawName)], displayStyle: .struct)
    }
}
