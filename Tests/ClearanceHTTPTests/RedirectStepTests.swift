import Clearance
import ClearanceHTTP
import Foundation
import HTTPTypes
import Testing

@Suite("RedirectStep")
struct RedirectStepTests {
    let original = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/a",
                               headerFields: [.authorization: "Bearer x", .cookie: "c=1", .contentType: "application/json"])

    func redirect(_ status: Int, to location: String) -> RedirectStep? {
        RedirectStep.next(after: HTTPResponse(status: .init(code: status), headerFields: [.location: location]), to: original, original: original)
    }

    @Test func sameOriginKeepsHeaders() throws {
        let step = try #require(redirect(307, to: "/b"))
        #expect(step.keepsCredential && step.keepsBody)
        #expect(step.request.method == .post && step.request.path == "/b")
        #expect(step.request.headerFields[.authorization] == "Bearer x")
    }

    @Test(arguments: ["https://evil.example.com/b", "http://api.example.com/b", "https://api.example.com:8443/b", "//evil.example.com/b"])
    func otherOriginsDropCredentials(location: String) throws {
        let step = try #require(redirect(307, to: location))
        #expect(!step.keepsCredential)
        for name in RedirectStep.credentialHeaders { #expect(step.request.headerFields[name] == nil) }
    }

    @Test func defaultPortIsTheSameOrigin() throws {
        #expect(try #require(redirect(302, to: "https://API.example.com:443/b")).keepsCredential)
    }

    @Test func methodChanges() throws {
        #expect(try #require(redirect(303, to: "/b")).request.method == .get)
        #expect(try #require(redirect(302, to: "/b")).request.headerFields[.contentType] == nil)
        #expect(try #require(redirect(308, to: "/b")).request.method == .post)
    }

    @Test func notARedirect() {
        #expect(redirect(200, to: "/b") == nil)
        #expect(redirect(304, to: "/b") == nil)
        #expect(redirect(302, to: "javascript:alert(1)") == nil)
        #expect(RedirectStep.next(after: HTTPResponse(status: .found), to: original, original: original) == nil)
    }
}
