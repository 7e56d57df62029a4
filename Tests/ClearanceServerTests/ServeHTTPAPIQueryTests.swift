import ClearanceServer
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance serve`'s HTTP API against captured signed requests rewritten so that they still
/// verify but mean something else: a parameter name in another case, `%26` and `%3D` folding
/// parameters together. Each is refused with 400; nothing leaks.
@Suite("clearance serve's HTTP API reads what it verified", .timeLimit(.minutes(2)))
struct ServeHTTPAPIQueryTests {
    @Test func rewrittenCapturedRequestsAreRefusedWith400() async throws {
        try await ServeProcess.with(limits: TestHub.limits(), development: false) { serve in
            let client = try TestWebSocketClient(url: URL(string: "ws://127.0.0.1:\(serve.port)/app/\(TestHub.key)?protocol=7")!)
            let established = try await client.next(event: "pusher:connection_established")
            let socketID = try #require(established.dataObject["socket_id"] as? String)
            for channel in ["public-news", "private-secret", "private-a=b"] {
                try await TestHub.subscribe(client, socketID: socketID, channel: channel)
            }
            let path = TestHub.restSigner.channelsPath

            // What the app signed: the public channels.
            let publicOnly = try TestHub.restSigner.sign(method: "GET", path: path, query: ["filter_by_prefix": "public-"])
            let listed = try await serve.http.raw("GET", path + "?" + publicOnly.percentEncodedQuery)
            #expect(listed.status == 200)
            #expect((listed.json["channels"] as? [String: Any]).map { Set($0.keys) } == ["public-news"])

            // Filter_By_Prefix: lower-cased for the signature, but not the parameter the handler read.
            let recased = publicOnly.percentEncodedQuery.replacingOccurrences(of: "filter_by_prefix=", with: "Filter_By_Prefix=")
            let recasedAnswer = try await serve.http.raw("GET", path + "?" + recased)
            #expect(recasedAnswer.status == 400, "\(recasedAnswer.status) \(recasedAnswer.body)")
            #expect(!recasedAnswer.body.contains("private-secret"))
            #expect(recasedAnswer.json["error"] as? String == "signing.invalidParameterName")

            // %3D in a name: `filter_by_prefix=private-a` = `b` signs as `filter_by_prefix` = `private-a=b`.
            let prefixed = try TestHub.restSigner.sign(method: "GET", path: path, query: ["filter_by_prefix": "private-a=b"])
            let nameWithEquals = prefixed.percentEncodedQuery.replacingOccurrences(
                of: "filter_by_prefix=private-a%3Db", with: "filter_by_prefix%3Dprivate-a=b")
            #expect(nameWithEquals != prefixed.percentEncodedQuery)
            let equalsAnswer = try await serve.http.raw("GET", path + "?" + nameWithEquals)
            #expect(equalsAnswer.status == 400, "\(equalsAnswer.status) \(equalsAnswer.body)")
            #expect(!equalsAnswer.body.contains("private-secret"))

            // %26 in a value: one parameter that signs as two.
            let presence = try TestHub.restSigner.sign(method: "GET", path: path, query: ["filter_by_prefix": "presence-", "info": "user_count"])
            let folded = presence.percentEncodedQuery.replacingOccurrences(
                of: "filter_by_prefix=presence-&info=user_count", with: "filter_by_prefix=presence-%26info%3Duser_count")
            #expect(folded != presence.percentEncodedQuery)
            let foldedAnswer = try await serve.http.raw("GET", path + "?" + folded)
            #expect(foldedAnswer.status == 400, "\(foldedAnswer.status) \(foldedAnswer.body)")
            #expect(foldedAnswer.json["error"] as? String == "signing.ambiguousParameter")

            // The requests as signed still work.
            #expect(try await serve.http.raw("GET", path + "?" + presence.percentEncodedQuery).status == 200)
            let exact = try await serve.http.raw("GET", path + "?" + prefixed.percentEncodedQuery)
            #expect((exact.json["channels"] as? [String: Any]).map { Set($0.keys) } == ["private-a=b"])
            await client.disconnect()
        }
    }
}
