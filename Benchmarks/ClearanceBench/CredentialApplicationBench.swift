import Clearance
import ClearanceDevelopment
import ClearanceHTTP
import Foundation
import HTTPTypes
import Logging

/// ns per request to apply a cached credential, against setting the same header by hand.
struct CredentialApplicationBench {
    let iterations: Int

    func run() async throws {
        print("Applying a credential (\(iterations) requests each)")
        let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJiZW5jaCJ9.c2lnbmF0dXJlLW9mLWEtdG9rZW4"
        let template = HTTPRequest(method: .post, scheme: "https", authority: "api.example.com", path: "/webxp/projects/p/appinbox/fetch")
        let credential = Credential.bearer(token)
        let cache = CachingCredentialSource(StaticCredentialSource(credential), initial: credential)
        let headerValue = "Bearer \(token)"

        var sink = 0
        BenchStatus.measuring("baseline: header set by hand (\(iterations) requests)")
        let baseline = Measure.secondsPerIteration(iterations) { _ in
            var request = template
            request.headerFields[.authorization] = headerValue
            sink &+= request.headerFields.count
        }
        BenchStatus.measuring("Credential.apply (\(iterations) requests)")
        let applied = Measure.secondsPerIteration(iterations) { _ in
            var request = template
            credential.apply(to: &request)
            sink &+= request.headerFields.count
        }
        BenchStatus.measuring("CachingCredentialSource.credential() + apply (\(iterations) requests)")
        let cached = try await Measure.nanosecondsPerCall(iterations) {
            var request = template
            try await cache.credential().apply(to: &request)
            sink &+= request.headerFields.count
        }
        Measure.printBaseline("baseline: header set by hand", baseline * 1e9, "%10.1f ns")
        Measure.printRatio("Credential.apply (credential in hand)", applied * 1e9, unit: "ns", baseline: baseline * 1e9, target: 2)
        Measure.printRatio("CachingCredentialSource.credential() + apply", cached, unit: "ns", baseline: baseline * 1e9, target: nil)
        if sink == 42 { print("") }  // keeps the loops from being optimized away
    }

}
