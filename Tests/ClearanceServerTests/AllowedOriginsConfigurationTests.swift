import ClearanceServer
import Foundation
import Testing

/// Origins as the configuration names them and browsers send them: one normal form, every
/// entry that is not an origin refused with the reason.
@Suite("Allowed origins: WebOrigin, OriginAllowlist, HubAppConfiguration.allowedOrigins")
struct AllowedOriginsConfigurationTests {
    @Test(arguments: [
        ("https://app.example.com", "https://app.example.com"),
        ("HTTPS://App.Example.COM", "https://app.example.com"),
        ("https://app.example.com:443", "https://app.example.com"),
        ("http://localhost:80", "http://localhost"),
        ("http://localhost:8080", "http://localhost:8080"),
        ("https://app.example.com:8443", "https://app.example.com:8443"),
        ("http://127.0.0.1:3000", "http://127.0.0.1:3000"),
        ("http://[::1]:3000", "http://[::1]:3000"),
        ("http://[::1]", "http://[::1]"),
        ("capacitor://localhost", "capacitor://localhost"),
    ])
    func originsHaveOneNormalForm(_ text: String, _ normal: String) throws {
        let origin = try #require(WebOrigin(text))
        #expect(origin.description == normal)
        #expect(WebOrigin(normal) == origin)
    }

    @Test(arguments: [
        ("https://app.example.com/", WebOriginProblem.hasPath),
        ("https://app.example.com/chat", .hasPath),
        ("https://app.example.com?x=1", .hasPath),
        ("https://app.example.com#top", .hasPath),
        ("https://user:pw@app.example.com", .hasUserInfo),
        ("https://", .invalidHost),
        ("https://:443", .invalidHost),
        ("https://app example.com", .invalidHost),
        ("http://[::1", .invalidHost),
        ("https://app.example.com:0", .invalidPort),
        ("https://app.example.com:65536", .invalidPort),
        ("https://app.example.com:", .invalidPort),
        ("https://app.example.com:x", .invalidPort),
        ("app.example.com", .notAnOrigin),
        ("null", .notAnOrigin),
        ("", .notAnOrigin),
        ("1http://a.com", .notAnOrigin),
        ("*", .wildcard),
    ])
    func whatIsNotAnOriginIsRefusedWithTheReason(_ text: String, _ problem: WebOriginProblem) {
        #expect(WebOrigin(text) == nil)
        #expect(WebOrigin.problem(in: text) == problem)
    }

    @Test func anAllowlistComparesNormalForms() throws {
        let list = OriginAllowlist([try #require(WebOrigin("https://app.example.com")), try #require(WebOrigin("http://localhost:8080"))])
        #expect(list.allows("https://app.example.com"))
        #expect(list.allows("https://APP.example.com:443"))
        #expect(list.allows("http://localhost:8080"))
        #expect(!list.allows("http://app.example.com"))  // another scheme
        #expect(!list.allows("https://app.example.com:8443"))  // another port
        #expect(!list.allows("https://evil.example.com"))
        #expect(!list.allows("null"))
        #expect(!list.allows("https://app.example.com/"))
        #expect(!OriginAllowlist([]).allows("https://app.example.com"))
        #expect(OriginAllowlist.any.allows("https://anything.example"))
        #expect(OriginAllowlist.any.allows("null"))
        #expect(list.description == "[http://localhost:8080, https://app.example.com]")
        #expect(OriginAllowlist.any.description == "any")
    }

    @Test func appsDecodeValidateAndDescribeTheirOrigins() throws {
        let json = #"{"apps":[{"id":"a","key":"k","secret":"s","allowedOrigins":["https://App.example.com:443","http://localhost:8080"]}]}"#
        let configuration = try JSONDecoder().decode(HubConfiguration.self, from: Data(json.utf8))
        try configuration.validate()
        let app = configuration.apps[0]
        #expect(app.allowedOrigins == ["https://App.example.com:443", "http://localhost:8080"])
        #expect(try app.originAllowlist().allows("https://app.example.com"))
        #expect(app.description.contains("allowedOrigins: [https://App.example.com:443, http://localhost:8080]"))
        // Encoded and decoded again, the same.
        let again = try JSONDecoder().decode(HubConfiguration.self, from: JSONEncoder().encode(configuration))
        #expect(again == configuration)

        let any = HubAppConfiguration(id: "a", key: "k", secret: "s")
        #expect(any.allowedOrigins == nil)
        #expect(try any.originAllowlist() == .any)
        #expect(any.description.contains("allowedOrigins: any"))
    }

    @Test func anEntryThatIsNotAnOriginIsAClearConfigurationError() throws {
        var app = HubAppConfiguration(id: "app-1", key: "k", secret: "s", allowedOrigins: ["https://ok.example.com", "https://app.example.com/"])
        let expected = HubConfigurationError.invalidAllowedOrigin(appID: "app-1", origin: "https://app.example.com/", problem: .hasPath)
        #expect(throws: expected) { try HubConfiguration(apps: [app]).validate() }
        #expect(expected.qualifiedCode == "hub.configuration.invalidAllowedOrigin")
        #expect(expected.message.contains("'https://app.example.com/'") && expected.message.contains("no path"))
        app.allowedOrigins = ["*"]
        #expect(throws: HubConfigurationError.invalidAllowedOrigin(appID: "app-1", origin: "*", problem: .wildcard)) {
            try HubConfiguration(apps: [app]).validate()
        }
        // An empty list is valid: no browser page may connect, servers and apps still can.
        app.allowedOrigins = []
        try HubConfiguration(apps: [app]).validate()
    }
}
