import ClearanceTesting
import Testing
@testable import Clearance

@Suite("WWW-Authenticate parsing")
struct ChallengeTests {
    @Test func bearerWithParameters() {
        let parsed = AuthenticationChallenge.parse([#"Bearer realm="example", error="invalid_token", error_description="The access token expired""#])
        #expect(parsed.count == 1)
        #expect(parsed[0].hasScheme("bearer"))
        #expect(parsed[0].parameters["realm"] == "example")
        #expect(parsed[0].error == "invalid_token")
        #expect(parsed[0].parameters["error_description"] == "The access token expired")
    }

    @Test func severalChallengesInOneHeader() {
        let parsed = AuthenticationChallenge.parse([#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#])
        #expect(parsed.map(\.scheme) == ["Newauth", "Basic"])
        #expect(parsed[0].parameters["type"] == "1")
        #expect(parsed[0].parameters["title"] == #"Login to "apps""#)
        #expect(parsed[1].parameters["realm"] == "simple")
    }

    @Test func token68AndBareSchemes() {
        let parsed = AuthenticationChallenge.parse(["Negotiate a87421000492aa874209af8bc028==", "Bearer", "Token"])
        #expect(parsed.count == 3)
        #expect(parsed[0].token68 == "a87421000492aa874209af8bc028==")
        #expect(parsed[1].parameters.isEmpty && parsed[1].token68 == nil)
    }

    @Test func garbageNeverCrashes() {
        for input in ["", ",,,", "=", "\"", "Bearer error=\"unterminated", "Bearer ,, error=x,", "Bearer realm=\"a\\", "é ü"] {
            _ = AuthenticationChallenge.parse([input])
        }
        #expect(AuthenticationChallenge.parse(["Bearer ,, error=x,"]).first?.error == "x")
    }

    @Test func refreshIsAllowedOnlyForInvalidTokenOrNoReason() {
        func allows(_ header: String?) -> Bool {
            RequestAuthorizer.allowsRefresh(header.map { AuthenticationChallenge.parse([$0]) } ?? [])
        }
        #expect(allows(nil))
        #expect(allows(#"Bearer realm="api""#))
        #expect(allows(#"Bearer error="invalid_token""#))
        #expect(!allows(#"Bearer error="insufficient_scope", scope="admin""#))
        #expect(!allows(#"Bearer error="invalid_request""#))
    }
}
