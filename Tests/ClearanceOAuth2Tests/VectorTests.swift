import ClearanceOAuth2
import ClearanceTestSupport
import ClearanceWire
import Foundation
import Testing

/// The RFC vectors in the shared `oauth2.json` (copied to Fixtures/): PKCE S256 and the
/// client_secret_basic encoding.
@Suite struct VectorTests {
    struct Vectors: Decodable {
        struct PKCEVector: Decodable {
            var source: String
            var code_verifier: String
            var code_challenge: String
        }
        struct BasicVector: Decodable {
            var source: String
            var client_id: String?
            var client_secret: String?
            var authorization: String?
            var form_urlencode_input: String?
            var form_urlencoded: String?
        }
        var pkce_s256: [PKCEVector]
        var client_secret_basic: [BasicVector]
    }

    static func vectors() throws -> Vectors {
        try JSONDecoder().decode(Vectors.self, from: Fixture.data("oauth2.json"))
    }

    @Test func pkceS256MatchesTheRFC7636Vector() throws {
        let vectors = try Self.vectors()
        #expect(!vectors.pkce_s256.isEmpty)
        for vector in vectors.pkce_s256 {
            #expect(PKCE.challenge(for: vector.code_verifier) == vector.code_challenge, "\(vector.source)")
            let pair = try PKCE(verifier: vector.code_verifier)
            #expect(pair.challenge == vector.code_challenge)
            #expect(pair.method == "S256")
        }
    }

    @Test func clientSecretBasicEncodesIDAndSecretFirst() throws {
        let vectors = try Self.vectors()
        var checked = 0
        for vector in vectors.client_secret_basic {
            if let id = vector.client_id, let secret = vector.client_secret, let expected = vector.authorization {
                let client = OAuth2Client(id: id, secret: secret, authentication: .clientSecretBasic)
                #expect(client.basicAuthorization == expected, "\(vector.source)")
                checked += 1
            }
            if let input = vector.form_urlencode_input, let expected = vector.form_urlencoded {
                #expect(PercentEncoding.formEncode(input) == expected, "\(vector.source)")
                checked += 1
            }
        }
        #expect(checked == 2)
    }
}
