import Clearance
@testable import ClearanceChannels
import ClearanceHTTP
import ClearanceSigning
import ClearanceTestSupport
import Foundation
import HTTPTypes
import Testing

/// The error `authorize` threw, as a `ChannelAuthorizationError`.
func authorizationError(_ body: () async throws -> ChannelAuthorization) async -> ChannelAuthorizationError? {
    do {
        _ = try await body()
        return nil
    } catch let error as ChannelAuthorizationError {
        return error
    } catch {
        Issue.record("not a ChannelAuthorizationError: \(error)")
        return nil
    }
}

@Suite(.serialized) struct ServerChannelAuthorizerTests {
    @Test func successSendsAPercentEncodedForm() async throws {
        try await AuthTestServer.with { server in
            let authorizer = try ServerChannelAuthorizer(endpoint: server.url("ok"), parameters: [("team", "a&b c")])
            let authorization = try await authorizer.authorize(socketID: "123.456", channelName: "private-a;b=c,d@e")
            #expect(authorization.auth == "key:sig-for-private-a;b=c,d@e")
            let request = try #require(await server.log.requests.first)
            #expect(request.contentType == "application/x-www-form-urlencoded")
            #expect(request.body == "socket_id=123.456&channel_name=private-a%3Bb%3Dc%2Cd%40e&team=a%26b%20c")
            #expect(request.form["channel_name"] == "private-a;b=c,d@e")
            #expect(request.form["team"] == "a&b c")
            _ = try await ServerChannelAuthorizer(endpoint: server.url("created")).authorize(socketID: "1.2", channelName: "private-x")
        }
    }

    @Test func everyFailureHasItsOwnError() async throws {
        try await AuthTestServer.with { server in
            func failure(_ path: String) async throws -> ChannelAuthorizationError? {
                let authorizer = try ServerChannelAuthorizer(endpoint: server.url(path))
                return await authorizationError { try await authorizer.authorize(socketID: "1.2", channelName: "private-a") }
            }
            let forbidden = try #require(try await failure("status/403"))
            #expect(forbidden.qualifiedCode == "channels.auth.httpStatus")
            #expect(forbidden.status == 403)
            #expect(forbidden.response?.bodyText == #"{"error":"refused","code":403}"#)
            let serverError = try #require(try await failure("status/500"))
            #expect(serverError.qualifiedCode == "channels.auth.httpStatus")
            #expect(serverError.status == 500)
            #expect(serverError.isTransient)
            let unauthorized = try #require(try await failure("status/401"))
            #expect(unauthorized.status == 401)
            #expect(unauthorized.response?.bodyText.contains("refused") == true)
            #expect(try await failure("notjson")?.qualifiedCode == "channels.auth.notJSON")
            #expect(try await failure("empty")?.qualifiedCode == "channels.auth.emptyBody")
            #expect(try await failure("array")?.qualifiedCode == "channels.auth.notObject")
        }
    }

    @Test func transportErrorIsItsOwnError() async throws {
        struct Unreachable: Error {}
        struct FailingTransport: HTTPTransport {
            func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) { throw Unreachable() }
        }
        let authorizer = try ServerChannelAuthorizer(endpoint: URL(string: "http://127.0.0.1:9/pusher/auth")!, transport: FailingTransport())
        let error = await authorizationError { try await authorizer.authorize(socketID: "1.2", channelName: "private-a") }
        #expect(error?.qualifiedCode == "channels.auth.transport")
        #expect(error?.underlying is Unreachable)
        #expect(error?.isTransient == true)
    }

    @Test func theClientsDeadlineReturnsOnTimeEvenWhileTheRequestHangs() async throws {
        try await AuthTestServer.with { server in
            // The one deadline on the authorization path is the client's (authorizationTimeout).
            let authorizer = try ServerChannelAuthorizer(endpoint: server.url("slow"))
            let started = ContinuousClock.now
            let attempt = await ChannelClient.attempt(timeout: .milliseconds(200)) {
                try await authorizer.authorize(socketID: "1.2", channelName: "private-a")
            }
            guard case .failure(let error) = attempt else {
                Issue.record("expected a timeout, got \(attempt)")
                return
            }
            #expect(error.qualifiedCode == "channels.auth.timedOut")
            #expect(ContinuousClock.now - started < TestTiming.slowed(.seconds(2)))
        }
    }

    @Test func hookAndAsyncHeaderProvidersShapeTheRequest() async throws {
        try await AuthTestServer.with { server in
            let calls = Locked(0)
            let authorizer = try ServerChannelAuthorizer(
                endpoint: server.url("ok"),
                headers: [HTTPField.Name("X-Test")!: "static"],
                headerProviders: [{
                    await Task.yield()  // a provider that suspends, as an async one may
                    let count = calls.withLock { $0 += 1; return $0 }
                    return [.authorization: "Bearer provided-\(count)"]
                }],
                willSend: { request, _ in
                    request.headerFields[HTTPField.Name("X-Test")!] = "hooked"
                }
            )
            _ = try await authorizer.authorize(socketID: "1.2", channelName: "private-a")
            _ = try await authorizer.authorize(socketID: "1.2", channelName: "private-b")
            let requests = await server.log.requests
            #expect(requests.map(\.authorization) == ["Bearer provided-1", "Bearer provided-2"])
            #expect(requests.allSatisfy { $0.testHeader == "hooked" })
        }
    }

    @Test func aFailingHeaderProviderIsACredentialError() async throws {
        struct NoToken: Error {}
        try await AuthTestServer.with { server in
            let authorizer = try ServerChannelAuthorizer(endpoint: server.url("ok"), headerProviders: [{ throw NoToken() }])
            let error = await authorizationError { try await authorizer.authorize(socketID: "1.2", channelName: "private-a") }
            #expect(error?.qualifiedCode == "channels.auth.credential")
            #expect(await server.log.count == 0)
        }
    }

    @Test func anExpiredBearerIsRefreshedOnceThroughAuthorizedClient() async throws {
        try await AuthTestServer.with { server in
            let fetches = Locked(0)
            let source = CachingCredentialSource(ClosureCredentialSource {
                let count = fetches.withLock { $0 += 1; return $0 }
                return .bearer(count == 1 ? "stale-token" : "fresh-token")
            })
            let authorizer = try ServerChannelAuthorizer(endpoint: server.url("bearer"), credentialSource: source)
            let authorization = try await authorizer.authorize(socketID: "1.2", channelName: "private-a")
            #expect(authorization.auth == "key:with-fresh-token")
            #expect(fetches.withLock { $0 } == 2)
            #expect(await server.log.requests.map(\.authorization) == ["Bearer stale-token", "Bearer fresh-token"])
            // The refreshed token is reused.
            _ = try await authorizer.authorize(socketID: "1.2", channelName: "private-b")
            #expect(fetches.withLock { $0 } == 2)
        }
    }

    @Test func aBearerOverPlainHTTPToAnotherHostIsRefused() async throws {
        let authorizer = try ServerChannelAuthorizer(endpoint: URL(string: "http://auth.example.com/pusher/auth")!, credentialSource: StaticCredentialSource(.bearer("secret-token")))
        let error = await authorizationError { try await authorizer.authorize(socketID: "1.2", channelName: "private-a") }
        #expect(error?.qualifiedCode == "channels.auth.credential")
        #expect(error?.message.contains("secret-token") == false)
    }

    @Test func userAuthenticationReadsAuthAndUserData() async throws {
        try await AuthTestServer.with { server in
            let authenticator = try ServerUserAuthenticator(endpoint: server.url("user-auth"))
            let authentication = try await authenticator.authenticate(socketID: "1.2")
            #expect(authentication.auth == "key:user")
            #expect(authentication.userData == #"{"id":"u1"}"#)
            #expect(await server.log.requests.first?.body == "socket_id=1.2")
        }
    }
}

@Suite(.serialized) struct BatchingChannelAuthorizerTests {
    @Test func manyChannelsGoInOnePost() async throws {
        try await AuthTestServer.with { server in
            let batching = BatchingChannelAuthorizer(server: try ServerChannelAuthorizer(endpoint: server.url("batch")), window: .milliseconds(50))
            let names = (0..<40).map { "private-ch-\($0)" }
            let results = try await withThrowingTaskGroup(of: (String, String).self) { group in
                for name in names {
                    group.addTask { (name, try await batching.authorize(socketID: "1.2", channelName: name).auth) }
                }
                var results: [String: String] = [:]
                for try await (name, auth) in group { results[name] = auth }
                return results
            }
            #expect(results.count == 40)
            #expect(results.allSatisfy { $0.value == "key:batch-\($0.key)" })
            #expect(await server.log.count == 1)
            #expect(await batching.requestCount == 1)
        }
    }

    @Test func perChannelFailuresFallBackOrStayFinal() async throws {
        try await AuthTestServer.with { server in
            let batching = BatchingChannelAuthorizer(server: try ServerChannelAuthorizer(endpoint: server.url("batch")), window: .milliseconds(50))
            async let good = batching.authorize(socketID: "1.2", channelName: "private-good")
            async let flaky = batching.authorize(socketID: "1.2", channelName: "private-flaky")
            async let broken = batching.authorize(socketID: "1.2", channelName: "private-broken")
            async let denied = authorizationError { try await batching.authorize(socketID: "1.2", channelName: "private-denied") }
            #expect(try await good.auth == "key:batch-private-good")
            #expect(try await flaky.auth == "key:single-private-flaky")
            #expect(try await broken.auth == "key:single-private-broken")
            let deniedError = await denied
            #expect(deniedError?.status == 403)
            #expect(deniedError?.response?.bodyText == #"{"error":"forbidden"}"#)
            // One batch, plus one single request each for the missing and the 500 entry; none for the 403.
            #expect(await server.log.count == 3)
        }
    }

    @Test func anEndpointThatDoesNotBatchFallsBackPerChannel() async throws {
        try await AuthTestServer.with { server in
            let batching = BatchingChannelAuthorizer(server: try ServerChannelAuthorizer(endpoint: server.url("nobatch")), window: .milliseconds(50))
            async let a = batching.authorize(socketID: "1.2", channelName: "private-a")
            async let b = batching.authorize(socketID: "1.2", channelName: "private-b")
            #expect(try await a.auth == "key:single-private-a")
            #expect(try await b.auth == "key:single-private-b")
            #expect(await server.log.count == 3)
        }
    }
}

@Suite struct CustomAndInlineAuthorizerTests {
    @Test func asyncClosureAndDenial() async throws {
        let authorizer = CustomChannelAuthorizer { socketID, channel in
            guard channel != "private-no" else { throw ChannelAuthorizationError.denied(reason: "not yours") }
            return ChannelAuthorization(auth: "key:\(socketID)-\(channel)")
        }
        #expect(try await authorizer.authorize(socketID: "1.2", channelName: "private-a").auth == "key:1.2-private-a")
        let denied = await authorizationError { try await authorizer.authorize(socketID: "1.2", channelName: "private-no") }
        #expect(denied?.qualifiedCode == "channels.auth.denied")
        struct AppFailure: Error {}
        let failing = CustomChannelAuthorizer { _, _ in throw AppFailure() }
        #expect(await authorizationError { try await failing.authorize(socketID: "1.2", channelName: "private-a") }?.qualifiedCode == "channels.auth.custom")
    }

    @Test func completionHandlerVariant() async throws {
        let authorizer = CustomChannelAuthorizer(completionHandler: { socketID, channel, completion in
            DispatchQueue.global().async {
                if channel == "private-no" {
                    completion(nil, nil)
                } else {
                    completion(ChannelAuthorization(auth: "key:\(socketID)"), nil)
                    completion(nil, ChannelAuthorizationError.denied(reason: "second call is ignored"))
                }
            }
        })
        #expect(try await authorizer.authorize(socketID: "1.2", channelName: "private-a").auth == "key:1.2")
        #expect(await authorizationError { try await authorizer.authorize(socketID: "1.2", channelName: "private-no") }?.qualifiedCode == "channels.auth.denied")
    }

    @Test func aCompletionHandlerNeverCalledIsCancellable() async throws {
        let called = AsyncStream<Void>.makeStream()
        let authorizer = CustomChannelAuthorizer(completionHandler: { _, _, _ in called.continuation.yield() })
        let task = Task { try await authorizer.authorize(socketID: "1.2", channelName: "private-a") }
        // Cancelled once the app's handler was called: the call waits for a completion that never comes.
        _ = try await first(called.stream) { _ in true }
        task.cancel()
        await #expect(throws: ChannelAuthorizationError.self) { try await task.value }
        if case .failure(let error) = await task.result {
            #expect((error as? ChannelAuthorizationError)?.code == .cancelled)
        }
    }

    @Test func inlineSecretSignsLikeTheServer() async throws {
        let signer = try ChannelAuthSigner(key: "key", secret: "secret", masterKeyBase64: Data(repeating: 3, count: 32).base64EncodedString())
        let authorizer = InlineSecretChannelAuthorizer(signer: signer) { _ in #"{"user_id":"u1"}"# }
        let presence = try await authorizer.authorize(socketID: "1.2", channelName: "presence-room")
        #expect(signer.verifyChannelAuth(auth: presence.auth, socketID: "1.2", channelName: "presence-room", channelData: presence.channelData))
        let encrypted = try await authorizer.authorize(socketID: "1.2", channelName: "private-encrypted-x")
        #expect(encrypted.sharedSecret == (try signer.sharedSecret(channelName: "private-encrypted-x")))
        let noPresence = try InlineSecretChannelAuthorizer(key: "key", secret: "secret")
        #expect(await authorizationError { try await noPresence.authorize(socketID: "1.2", channelName: "presence-room") }?.qualifiedCode == "channels.auth.misconfigured")
    }
}
