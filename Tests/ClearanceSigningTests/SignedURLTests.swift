import ClearanceSigning
import Foundation
import Testing

@Suite("RESTRequestSigner.signedURL")
struct SignedURLTests {
    @Test func buildsTheDocsWorkedExample() throws {
        // Pusher docs, REST API worked example (also in pusher-signatures.json).
        let signer = try RESTRequestSigner(appID: "3", key: "278d425bdf160c739803", secret: "7ad3773142a6692b25b8")
        let body = Data(#"{"name":"foo","channels":["project-3"],"data":"{\"some\":\"data\"}"}"#.utf8)
        let url = try signer.signedURL(method: "POST", baseURL: URL(string: "http://127.0.0.1:6001")!, path: "/apps/3/events",
                                       body: body, now: Date(timeIntervalSince1970: 1_353_088_179))
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        #expect(components.host == "127.0.0.1" && components.port == 6001 && components.path == "/apps/3/events")
        let query = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(query["auth_signature"] == "da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c")
        #expect(query["body_md5"] == "ec365a775a4cd0599faeb73354201b6f")
    }
}
