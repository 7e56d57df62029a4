import Clearance
import ClearanceOAuth2
import Foundation
import HTTPTypes

extension FuzzTarget {
    /// A token endpoint's answer (`TokenResponse.parse`): the selector picks the HTTP status, the
    /// rest is the body.
    ///
    /// Invariants: an accepted access token is non-empty printable ASCII; a refusal never shows
    /// the request's secret in its description; the token set survives being stored.
    static let tokenResponse = FuzzTarget(name: "token-response", summary: "TokenResponse.parse (OAuth2 token endpoint answers)") { data throws(FuzzViolation) in
        let input = FuzzInput(data)
        let statuses = [200, 201, 400, 401, 403, 500, 503, 302]
        let response = HTTPResponse(status: .init(code: statuses[Int(input.selector) % statuses.count]))
        let secret = "fuzz-client-secret-0123456789"
        let parsed: TokenResponse
        do {
            parsed = try TokenResponse.parse(response, body: input.payload, secrets: [secret])
        } catch {
            try FuzzViolation.require(!String(describing: error).contains(secret), "a refusal shows the secret: \(error)")
            return
        }
        try FuzzViolation.require(
            !parsed.accessToken.isEmpty && parsed.accessToken.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F },
            "accepted access token \(parsed.accessToken.debugDescription)")
        let token = parsed.token(receivedAt: Date(timeIntervalSince1970: 1_700_000_000))
        try FuzzViolation.require(token.expiresAt.map { $0.timeIntervalSince1970.isFinite } ?? true, "an expiry that is not finite")
        try SessionStoreFuzzing.requireRoundTrip(StoredSession(token: token, savedAt: token.obtainedAt))
    }
}
