import ClearanceOAuth2
import Foundation
import HTTPTypes
import Testing

/// Token response parsing (RFC 6749 §5.1, §5.2): errors even with HTTP 200, expiry from
/// `expires_in` at arrival, lenient where servers differ.
@Suite struct TokenResponseTests {
    func parse(_ json: String, status: Int = 200, headers: HTTPFields = [:], secrets: [String] = []) throws(OAuth2Error) -> TokenResponse {
        try TokenResponse.parse(HTTPResponse(status: .init(code: status), headerFields: headers), body: Data(json.utf8), secrets: secrets)
    }

    @Test func parsesAFullResponseAndComputesExpiryFromArrival() throws {
        let response = try parse(#"{"access_token":"abc","token_type":"bearer","expires_in":3600,"refresh_token":"r1","scope":"read write"}"#)
        #expect(response.accessToken == "abc")
        #expect(response.tokenType == "bearer")
        #expect(response.expiresIn == .seconds(3600))
        #expect(response.scopes == ["read", "write"])
        let arrival = Date(timeIntervalSince1970: 1_000_000)
        let token = response.token(receivedAt: arrival)
        #expect(token.expiresAt == arrival.addingTimeInterval(3600))
        #expect(token.refreshToken == "r1")
    }

    @Test func expiryNeverComesFromAJWTExp() throws {
        // A JWT access token whose exp says 2001: the session must use expires_in, not exp.
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjEwMDAwMDAwMDB9.c2lnbmF0dXJl"
        let response = try parse(#"{"access_token":"\#(jwt)","token_type":"Bearer","expires_in":"120"}"#)
        let arrival = Date(timeIntervalSince1970: 1_750_000_000)
        #expect(response.token(receivedAt: arrival).expiresAt == arrival.addingTimeInterval(120))
    }

    @Test func keepsTheOldRefreshTokenWhenNoneIsReturned() throws {
        let response = try parse(#"{"access_token":"abc","token_type":"Bearer"}"#)
        #expect(response.expiresIn == nil)
        #expect(response.token(receivedAt: Date(), previousRefreshToken: "old").refreshToken == "old")
    }

    @Test func anErrorWithHTTP200IsAnError() {
        #expect {
            try parse(#"{"error":"invalid_grant","error_description":"expired","access_token":"x"}"#)
        } throws: { error in
            guard let error = error as? OAuth2Error, case .server(let server) = error else { return false }
            return error.code == .invalidGrant && server.httpStatus == 200
        }
    }

    @Test func mapsRFC6749ErrorsToStableCodes() {
        let cases: [(String, OAuth2Error.Code)] = [
            ("invalid_request", .invalidRequest), ("invalid_client", .invalidClient), ("invalid_grant", .invalidGrant),
            ("unauthorized_client", .unauthorizedClient), ("unsupported_grant_type", .unsupportedGrantType),
            ("invalid_scope", .invalidScope), ("something_new", .unrecognizedServerError),
        ]
        for (wire, code) in cases {
            do {
                _ = try parse(#"{"error":"\#(wire)"}"#, status: 400)
                Issue.record("\(wire) must throw")
            } catch {
                #expect(error.code == code)
                #expect(error.qualifiedCode == "oauth2.\(code.rawValue)")
            }
        }
    }

    @Test func fiveHundredsAreUnavailableWithRetryAfter() {
        do {
            _ = try parse("<html>oops</html>", status: 503, headers: [.retryAfter: "7"])
            Issue.record("must throw")
        } catch {
            guard case .serverUnavailable(let response) = error, response.status == 503 else { Issue.record("\(error)"); return }
            #expect(response.retryAfter == .seconds(7))
            #expect(response.bodySnippet == "<html>oops</html>")
        }
    }

    @Test func unusableBodiesAreBadResponses() {
        for (body, status) in [("not json", 200), (#"{"token_type":"Bearer"}"#, 200), (#"{"access_token":""}"#, 200), (#"{"access_token":"a b"}"#, 200), ("", 400)] {
            do {
                _ = try parse(body, status: status)
                Issue.record("\(body) must throw")
            } catch {
                #expect(error.code == .badResponse, "\(body)")
            }
        }
    }

    @Test("an id_token is kept as sent; absent or null is none; anything but a non-empty string is a bad response")
    func idTokenMember() throws {
        #expect(try parse(#"{"access_token":"a","id_token":"h.p.s"}"#).idToken == "h.p.s")
        #expect(try parse(#"{"access_token":"a"}"#).idToken == nil)
        #expect(try parse(#"{"access_token":"a","id_token":null}"#).idToken == nil)
        for value in [#""""#, "42", "true", #"["h.p.s"]"#, #"{"jwt":"h.p.s"}"#] {
            do {
                _ = try parse(#"{"access_token":"a","id_token":\#(value)}"#)
                Issue.record("id_token \(value) must throw")
            } catch {
                #expect(error.code == .badResponse, "\(value)")
                #expect(error.message.contains("id_token"), "\(value): \(error.message)")
            }
        }
    }

    @Test func errorDescriptionsNeverCarryTheRequestsSecrets() {
        do {
            _ = try parse(#"{"error":"invalid_grant","error_description":"refresh token rt-SECRET-123 is revoked; access_token=at-SECRET-9"}"#, status: 400, secrets: ["rt-SECRET-123"])
        } catch {
            #expect(!error.message.contains("SECRET"))
            #expect(!"\(error)".contains("SECRET"))
            #expect(!"\(error.authorizationError(source: "s"))".contains("SECRET"))
        }
    }

    /// Found by `scripts/fuzz token-response`: an unrecognized `error` code echoed a secret.
    @Test func errorCodesNeverCarryTheRequestsSecrets() {
        do {
            _ = try parse(#"{"error":"invalid_grd rt-SECRET-123"}"#, status: 400, secrets: ["rt-SECRET-123"])
            Issue.record("an error answer parsed")
        } catch {
            #expect(!error.message.contains("SECRET"))
            #expect(!"\(error)".contains("SECRET"))
        }
    }
}
