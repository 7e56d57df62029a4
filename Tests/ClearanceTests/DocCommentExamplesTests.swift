import Clearance
import ClearanceTesting
import Foundation
import Testing

/// The doc comments' examples of `Clearance` and `ClearanceTesting`, compiled and run; each marked
/// region is one of their Swift blocks (`DocumentationTests` checks both ways).
@Suite("Doc comment examples: core")
struct DocCommentExamplesTests {
    /// A `ClearanceError` as `ErrorSummary`'s doc comment writes one.
    enum SampleError: ClearanceError {
        case expired(String)
        case cancelled

        enum Code: String, Sendable {
            case expired, cancelled
        }

        static var codeDomain: String { "sample" }
    }

    @Test func errorSummary() {
        #expect(SampleError.cancelled.qualifiedCode == "sample.cancelled")
        #expect(SampleError.expired("at noon").message == "The credential expired: at noon.")
    }

    @Test func firstResult() async throws {
        let redirect = URL(string: "http://127.0.0.1/callback?code=1")!
        // snippet: begin
        let first = FirstResult<URL, any Error>()
        let url = try await withCheckedThrowingContinuation { continuation in
            first.install(continuation)
            first.resume(with: .success(redirect))        // a deadline or a cancellation may race it: the first wins
        }
        // snippet: end
        #expect(url == redirect)
    }

    @Test func logCapture() async throws {
        let token = "eyJ.doc-comment-token.sig"
        let upstream = StaticCredentialSource(.bearer(token))
        // snippet: begin
        let logs = LogCapture()
        let source = CachingCredentialSource(upstream, logger: logs.logger())
        _ = try await source.credential()
        #expect(!logs.text.contains(token))
        // snippet: end
    }
}

extension DocCommentExamplesTests.SampleError {
    // snippet: begin
    public var summary: ErrorSummary<Code> {
        switch self {
        case .expired(let reason): .init(.expired, "The credential expired: \(Redactor.scrub(reason)).")
        case .cancelled: .init(.cancelled, "The request was cancelled.")
        }
    }
    // snippet: end
}
