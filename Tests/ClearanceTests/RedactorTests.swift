import Foundation
import ClearanceTesting
import Testing
@testable import Clearance

@Suite("Redactor")
struct RedactorTests {
    @Test(arguments: [
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdef", "eyJhbGci"),
        (#"{"access_token":"at-SECRET-1","token_type":"bearer"}"#, "at-SECRET-1"),
        (#"{"refresh_token" : "rt-SECRET-2"}"#, "rt-SECRET-2"),
        ("grant_type=password&username=jane&password=pw-SECRET-3", "pw-SECRET-3"),
        ("https://x.example/cb?code=code-SECRET-4&state=abc", "code-SECRET-4"),
        ("Token tok-SECRET-5", "tok-SECRET-5"),
        ("client_secret=cs-SECRET-6", "cs-SECRET-6"),
    ])
    func scrubsSecrets(input: String, secret: String) {
        let scrubbed = Redactor.scrub(input)
        #expect(!scrubbed.contains(secret), "\(scrubbed)")
        #expect(scrubbed.contains(Redactor.mask))
    }

    @Test func leavesProseAlone() {
        let text = "advanced auth is on but no customer token provider was given"
        #expect(Redactor.scrub(text) == text)
    }

    @Test func snippetIsBounded() {
        let body = Data(String(repeating: "x", count: 10_000).utf8)
        #expect(Redactor.snippet(of: body, limit: 100).count <= 101)
    }

    @Test func underlyingErrorsLoseTheirURLQueries() {
        let error = URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: "timed out: https://api.example.com/v1/items?key=K-LEAK&x=1 and ws://h:80/app?sig=S-LEAK"])
        let text = Redactor.describe(error)
        #expect(!text.contains("LEAK"), "\(text)")
        #expect(text.contains("https://api.example.com/v1/items?\(Redactor.mask)"))
        #expect(Redactor.describe(error, masking: ["timed"]).contains("\(Redactor.mask) out"))
    }
}
