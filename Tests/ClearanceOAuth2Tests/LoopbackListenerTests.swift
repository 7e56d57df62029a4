import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Testing

/// The loopback listener faces whatever else runs on the machine: forged redirects, floods,
/// overlong requests.
@Suite(.serialized) struct LoopbackListenerTests {
    /// GETs `pathAndQuery` on the listener; returns the status.
    static func get(_ listener: LoopbackRedirectListener, _ pathAndQuery: String) async throws -> Int {
        let base = listener.redirectURI.absoluteString.replacingOccurrences(of: listener.redirectURI.path, with: "")
        let (response, _) = try await AsyncHTTPClientHTTPTransport.shared.send(HTTPRequest(method: .get, url: URL(string: base + pathAndQuery)!), body: nil)
        return response.status.code
    }

    @Test func redirectsWithAnotherStateAreIgnoredUntilTheRealOneComes() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { Task { await listener.stop() } }
        let waiting = Task { try await listener.receiveRedirect(state: "the-real-state") }
        try await eventually("the caller waits for its redirect") { listener.waiterCount == 1 }
        for index in 0..<40 {
            #expect(try await Self.get(listener, "/callback?code=forged-\(index)&state=forged") == 400)
        }
        #expect(try await Self.get(listener, "/callback?code=no-state") == 400)
        #expect(listener.pendingCount == 0)
        #expect(try await Self.get(listener, "/callback?code=real&state=the-real-state") == 200)
        let url = try await waiting.value
        #expect(url.query?.contains("code=real") == true)
    }

    @Test func theWaitingListIsBoundedAndStaleOnesAreDropped() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { Task { await listener.stop() } }
        var statuses: [Int] = []
        for index in 0..<(LoopbackRedirectListener.maximumPendingRedirects + 10) {
            statuses.append(try await Self.get(listener, "/callback?code=c\(index)&state=s\(index)"))
        }
        #expect(statuses.filter { $0 == 200 }.count == LoopbackRedirectListener.maximumPendingRedirects)
        #expect(statuses.suffix(10).allSatisfy { $0 == 400 })
        #expect(listener.pendingCount == LoopbackRedirectListener.maximumPendingRedirects)
        // A caller waiting for one state takes it and drops every other.
        let url = try await listener.receiveRedirect(state: "s3")
        #expect(url.query?.contains("code=c3") == true)
        #expect(listener.pendingCount == 0)
    }

    @Test func anOverlongRequestIsRefused() async throws {
        let listener = try await LoopbackRedirectListener.start()
        defer { Task { await listener.stop() } }
        let long = String(repeating: "a", count: LoopbackRedirectListener.maximumTargetLength)
        #expect(try await Self.get(listener, "/callback?code=\(long)&state=s") == 414)
        #expect(listener.pendingCount == 0)
    }

    /// The whole flow: another process answers the listener first with a forged `state`; the
    /// sign-in goes on and completes with the real redirect.
    @Test func aForgedRedirectDoesNotEndTheSignIn() async throws {
        let harness = try await SessionHarness.start()
        defer { Task { await harness.stop() } }
        let listener = try await LoopbackRedirectListener.start()
        defer { Task { await listener.stop() } }
        let session = harness.session(clock: SystemOAuth2Clock())
        let forgedStatus = Locked<Int?>(nil)
        let flow = AuthorizationCodeFlow(receiver: listener, timeout: .seconds(20)) { url in
            // Once the flow waits for its state, a forged answer is refused; then the real one.
            Task {
                try await eventually("the flow waits for its redirect") { listener.waiterCount == 1 }
                let status = try await Self.get(listener, "/callback?code=attacker&state=forged")
                forgedStatus.withLock { $0 = status }
                try await Browser.follow(url)
            }
        }
        try await session.signIn(with: flow)
        #expect(forgedStatus.withLock { $0 } == 400)
        #expect(harness.server.lastForm?["code"] != "attacker")
        #expect(try await harness.callAPI(harness.client(session)) == 200)
    }
}
