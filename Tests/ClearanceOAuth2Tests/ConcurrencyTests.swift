import Clearance
import ClearanceHTTP
@testable import ClearanceOAuth2
import ClearanceTestSupport
import Foundation
import Testing

/// One renewal for everyone: 1,000 concurrent requests share one refresh and one automatic sign-in.
@Suite(.serialized) struct ConcurrencyTests {
    static let concurrency = 1_000

    /// Lets the server answer the held token request once every request waits for the one renewal.
    static func answerOnceAllWait(_ session: OAuth2Session, _ harness: SessionHarness) async throws {
        try await eventually("all \(concurrency) requests wait for the one renewal", timeout: .seconds(30)) {
            session.tokenFlight.waiterCount == concurrency
        }
        harness.server.tokenAnswers.open()
    }

    @Test func thousandConcurrentRequestsOnAnExpiredSessionCauseExactlyOneRefresh() async throws {
        let harness = try await SessionHarness.start { $0.heldGrants = ["refresh_token"] }
        defer { Task { await harness.stop() } }
        let session = try await harness.signedInSession()
        harness.clock.advance(by: .seconds(3_600))
        let client = try harness.client(session)

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask { try await harness.callAPI(client) }
            }
            try await Self.answerOnceAllWait(session, harness)
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == Self.concurrency)
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(harness.server.tokenRequests("refresh_token") == 1)
        #expect(harness.server.apiRequests == Self.concurrency)
    }

    @Test func thousandConcurrentFirstRequestsCauseExactlyOneAutomaticSignIn() async throws {
        let harness = try await SessionHarness.start { $0.heldGrants = ["app"] }
        defer { Task { await harness.stop() } }
        let session = harness.session(automaticSignIn: harness.app)
        let client = try harness.client(session)

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask { try await harness.callAPI(client) }
            }
            try await Self.answerOnceAllWait(session, harness)
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 })
        #expect(harness.server.tokenRequests("app") == 1)
        #expect(harness.server.totalTokenRequests == 1)
        #expect(session.isAuthenticated)
    }

    @Test func aFailedAutomaticSignInFailsEveryWaiterWithTheSameTypedError() async throws {
        let harness = try await SessionHarness.start { $0.heldGrants = ["app"] }
        defer { Task { await harness.stop() } }
        harness.server.script("app", .oauthError("unauthorized_client", status: 400))
        let session = harness.session(automaticSignIn: harness.app)
        let client = try harness.client(session)

        let codes = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<Self.concurrency {
                group.addTask {
                    do {
                        _ = try await harness.callAPI(client)
                        return "succeeded"
                    } catch let error as AuthorizationError {
                        let oauth = error.underlying as? OAuth2Error
                        return "\(error.qualifiedCode)/\(oauth?.qualifiedCode ?? "none")"
                    } catch {
                        return "untyped: \(error)"
                    }
                }
            }
            try await Self.answerOnceAllWait(session, harness)
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(codes) == ["clearance.missingCredential/oauth2.unauthorized_client"])
        #expect(harness.server.tokenRequests("app") == 1)
        #expect(harness.server.apiRequests == 0)
        guard case .failed(let error) = session.state else { Issue.record("\(session.state)"); return }
        #expect(error.code == .unauthorizedClient)
    }
}
