import Foundation
import HTTPTypes
import ClearanceTesting
import Testing
@testable import Clearance

@Suite("Credential")
struct CredentialTests {
    private func applied(_ credential: Credential, path: String = "/v1/items") -> HTTPRequest {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: path)
        credential.apply(to: &request)
        return request
    }

    @Test func apiKeyIsTokenScheme() {
        let request = applied(.apiKey("k3y-ABC"))
        #expect(request.headerFields[values: .authorization] == ["Token k3y-ABC"])
    }

    @Test func bearerHeaderBytes() {
        let request = applied(.bearer("eyJhbGciOiJIUzI1NiJ9.e30.sig"))
        #expect(Array(request.headerFields[.authorization]!.utf8) == Array("Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig".utf8))
    }

    @Test func accessTokenWithPodioScheme() {
        #expect(applied(.accessToken("abc123", scheme: "OAuth2")).headerFields[.authorization] == "OAuth2 abc123")
        #expect(Credential.accessToken("abc123").kind == .bearer)
    }

    @Test func basicIsRFC7617WithUTF8() throws {
        // RFC 7617 §2: Aladdin / open sesame
        #expect(applied(try .basic(user: "Aladdin", password: "open sesame")).headerFields[.authorization] == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        // RFC 7617 §2.1: test / 123£ in UTF-8
        #expect(applied(try .basic(user: "test", password: "123£")).headerFields[.authorization] == "Basic dGVzdDoxMjPCow==")
    }

    @Test func basicRejectsColonInUser() {
        #expect(throws: AuthorizationError.self) { try Credential.basic(user: "a:b", password: "x") }
    }

    @Test func customHeaders() {
        let name = HTTPField.Name("X-API-Key")!
        let request = applied(.headers([HTTPField(name: name, value: "secret-value")]))
        #expect(request.headerFields[name] == "secret-value")
        #expect(request.headerFields[.authorization] == nil)
    }

    @Test func queryParameterIsAddedAndEncoded() {
        let request = applied(.queryParameter(name: "api_key", value: "a+b c/d"), path: "/v1/items?page=2")
        #expect(request.path == "/v1/items?page=2&api_key=a%2Bb%20c%2Fd")
        var stripped = request
        Credential.queryParameter(name: "api_key", value: "a+b c/d").remove(from: &stripped)
        #expect(stripped.path == "/v1/items?page=2")
    }

    @Test func applyReplacesAnEarlierValue() {
        var request = HTTPRequest(method: .get, scheme: "https", authority: "a.example", path: "/", headerFields: [.authorization: "Bearer old"])
        Credential.bearer("new-token").apply(to: &request)
        #expect(request.headerFields[values: .authorization] == ["Bearer new-token"])
    }

    @Test(arguments: [
        Credential.apiKey("S3CRET-api-key"), .bearer("S3CRET-bearer"), .accessToken("S3CRET-podio", scheme: "OAuth2"),
        try! .basic(user: "user", password: "S3CRET-password"), .queryParameter(name: "key", value: "S3CRET-query"),
        .headers([HTTPField(name: HTTPField.Name("X-Key")!, value: "S3CRET-header")]),
    ])
    func descriptionsNeverShowTheSecret(credential: Credential) {
        var dumped = ""
        dump(credential, to: &dumped)
        for text in [credential.description, credential.debugDescription, "\(credential)", String(reflecting: credential), dumped] {
            #expect(!text.contains("S3CRET"), "leaked in: \(text)")
            #expect(!text.contains("dXNlcjpTM0NSRVQ"), "leaked base64 in: \(text)")
        }
    }

    @Test func emptyAndControlCharactersAreRefused() {
        #expect(throws: AuthorizationError.self) { try Credential.bearer("  ").validated(source: "s") }
        let error = #expect(throws: AuthorizationError.self) { try Credential.bearer("abc\r\nX-Injected: 1").validated(source: "s") }
        #expect(error?.code == .misconfigured)
    }
}
