import HTTPTypes
import ClearanceTesting
import Testing
@testable import Clearance

@Suite("PathTemplate and policy")
struct PathTemplateTests {
    @Test func matchesParameters() throws {
        let template = try PathTemplate("/webxp/projects/{projectToken}/appinbox/fetch")
        #expect(template.match("/webxp/projects/abc-123/appinbox/fetch") == ["projectToken": "abc-123"])
        #expect(template.match("/webxp/projects/abc-123/appinbox/fetch?v=1") == ["projectToken": "abc-123"])
        #expect(template.match("/webxp/projects//appinbox/fetch") == nil)
        #expect(template.match("/webxp/projects/a/b/appinbox/fetch") == nil)
        #expect(template.match("/webxp/projects/abc/appinbox/fetch/extra") == nil)
        #expect(template.match("/webxp/projects/abc/appinbox") == nil)
        #expect(template.match("/WEBXP/projects/abc/appinbox/fetch") == nil)
    }

    @Test func restSegments() throws {
        #expect(try PathTemplate("/files/{path...}").match("/files/a/b/c.txt") == ["path": "a/b/c.txt"])
        #expect(try PathTemplate("/files/{path...}").match("/files/") == ["path": ""])
        #expect(try PathTemplate("/api/**").matches("/api/v1/x"))
        #expect(try PathTemplate("/").matches("/"))
        #expect(try !PathTemplate("/").matches("/a"))
    }

    @Test(arguments: ["no-slash", "/a/{}", "/a/{x}/{x}", "/a/{x", "/a/**/b", "/a/{r...}/b", "/a/x}y"])
    func badTemplatesAreMisconfigured(template: String) {
        let error = #expect(throws: AuthorizationError.self) { try PathTemplate(template) }
        #expect(error?.code == .misconfigured)
    }

    @Test func endpointRulesMatchMethodAndHost() throws {
        let rule = try EndpointRule("POST /track/{p}", host: "API.example.com", requirement: .source("key"))
        #expect(rule.matches(HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/track/x")))
        #expect(rule.matches(HTTPRequest(method: .post, scheme: "https", authority: "api.example.com:8443", path: "/track/x")))
        #expect(!rule.matches(HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/track/x")))
        #expect(!rule.matches(HTTPRequest(method: .post, scheme: "https", authority: "evil.example.com", path: "/track/x")))
        let withPort = try EndpointRule("/x", host: "api.example.com:8443", requirement: .none)
        #expect(!withPort.matches(HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/x")))
        #expect(throws: AuthorizationError.self) { try EndpointRule("BAD(METHOD) /x", requirement: .none) }
    }

    @Test func firstMatchingRuleWins() throws {
        var policy = AuthorizationPolicy(unmatched: .source("fallback"))
        try policy.require(.source("customer"), for: "POST /webxp/projects/{p}/appinbox/fetch")
        try policy.require(.source("key"), for: "/webxp/**")
        let fetch = HTTPRequest(method: .post, scheme: "https", authority: "h", path: "/webxp/projects/p/appinbox/fetch")
        let other = HTTPRequest(method: .post, scheme: "https", authority: "h", path: "/webxp/s/p/inappmessages?v=1")
        let none = HTTPRequest(method: .get, scheme: "https", authority: "h", path: "/health")
        #expect(policy.requirement(for: fetch).0 == .source("customer"))
        #expect(policy.requirement(for: other).0 == .source("key"))
        #expect(policy.requirement(for: none).0 == .source("fallback"))
        #expect(policy.requirement(for: none).1 == nil)
    }
}
