import ClearanceOAuth2
import ClearanceTestSupport
import ClearanceWire
import Foundation
import Testing

/// The RFC vectors in the shared `oauth2.json` (copied to Fixtures/): PKCE S256 and the
/// client_secret_basic encoding.
@Suite struct VectorTests {
    /// Each vector is a flat object of strings.
    typealias Vectors = [String: [[String: String]]]

    static func vectors() throws -> Vectors {
        try JSONDecoder().decode(Vectors.self, from: Fixture.data("oauth2.json"))
    }

    @Test func pkceS256MatchesTheRFC7636Vector() throws {
        let vectors = try #require(try Self.vectors()["pkce_s256"])
        #expect(!vectors.isEmpty)
        for vector in vectors {
            let verifier = try #require(vector["code_verifier"]), challenge = try #require(vector["code_challenge"])
            #expect(PKCE.challenge(for: verifier) == challenge, "\(vector["source"] ?? "")")
            let pair = try PKCE(verifier: verifier)
            #expect(pair.challenge == challenge)
            #expect(pair.method == "S256")
        }
    }

    @Test func clientSecretBasicEncodesIDAndSecretFirst() throws {
        var checked = 0
        for vector in try #require(try Self.vectors()["client_secret_basic"]) {
            if let id = vector["client_id"], let secret = vector["client_secret"], let expected = vector["authorization"] {
                let client = OAuth2Client(id: id, secret: secret, authentication: .clientSecretBasic)
                #expect(client.basicAuthorization == expected, "\(vector["source"] ?? "")")
                checked += 1
            }
            if let input = vector["form_urlencode_input"], let expected = vector["form_urlencoded"] {
                #expect(PercentEncoding.formEncode(input) == expected, "\(vector["source"] ?? "")")
                checked += 1
            }
        }
        #expect(checked == 2)
    }
}
