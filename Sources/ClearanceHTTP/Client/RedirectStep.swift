import Clearance
import Foundation
import HTTPTypes

/// What to do with a redirect response: a plain value, tested on its own (as AsyncHTTPClient's
/// `RedirectState`).
///
/// - 301/302 turn a `POST` into a `GET` without body (as browsers and the Fetch standard do);
///   303 turns anything but `HEAD` into `GET`; 307/308 keep the method and body.
/// - Going to another origin (scheme, host or port) drops every credential: the one Clearance
///   applies, and any `Authorization`, `Proxy-Authorization` or `Cookie` the app set itself.
public struct RedirectStep: Sendable, Equatable {
    /// The request to send next (without any credential; Clearance applies one if ``keepsCredential``).
    public var request: HTTPRequest
    /// Whether the body is sent again.
    public var keepsBody: Bool
    /// Whether the new target has the same origin as the original request.
    public var keepsCredential: Bool

    /// Headers that carry credentials and never cross origins.
    public static let credentialHeaders: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie]

    /// The next step for `response` to `request`, or nil when `response` is not a redirect one can follow.
    /// - Parameters:
    ///   - response: The answer to `request` (301, 302, 303, 307 or 308 with a `Location`).
    ///   - request: The request that was just sent.
    ///   - original: The first request of the chain; credentials follow only while the origin equals its origin.
    public static func next(after response: HTTPResponse, to request: HTTPRequest, original: HTTPRequest) -> RedirectStep? {
        guard [301, 302, 303, 307, 308].contains(response.status.code),
              let location = response.headerFields[.location],
              let base = request.url,
              let target = URL(string: location, relativeTo: base)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), ["http", "https"].contains(scheme)
        else { return nil }

        var next = HTTPRequest(method: request.method, url: target)
        next.headerFields = request.headerFields
        var keepsBody = true
        switch response.status.code {
        case 303 where request.method != .head, 301 where request.method == .post, 302 where request.method == .post:
            next.method = .get
            keepsBody = false
            next.headerFields[.contentType] = nil
            next.headerFields[.contentLength] = nil
        default:
            break
        }
        let sameOrigin = Origin(next) != nil && Origin(next) == Origin(original)
        if !sameOrigin {
            for name in credentialHeaders { next.headerFields[name] = nil }
        }
        return RedirectStep(request: next, keepsBody: keepsBody, keepsCredential: sameOrigin)
    }
}
