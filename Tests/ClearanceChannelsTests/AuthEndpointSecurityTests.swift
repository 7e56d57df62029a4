import Clearance
@testable import ClearanceChannels
import ClearanceHTTP
import Foundation
import HTTPTypes
import Testing

/// Whatever an auth request carries besides the socket id and channel name is treated as a
/// credential: never over plain HTTP to another host, never to another origin on a redirect.
@Suite(.serialized) struct AuthEndpointSecurityTests {
    /// Answers 200 and counts: nothing may reach it.
    final class RecordingTransport: HTTPTransport {
        let sent = Locked(0)
        func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
            sent.withLock { $0 += 1 }
            return (HTTPResponse(status: .ok), Data(#"{"auth":"k:s"}"#.utf8))
        }
    }

    @Test(arguments: ["headers", "providers", "parameters"])
    func secretsOverPlainHTTPToAnotherHostAreRefused(what: String) async throws {
        let transport = RecordingTransport()
        let asked = Locked(0)
        let endpoint = URL(string: "http://auth.example.com/pusher/auth")!
        func authorizer(_ security: TransportSecurity) throws -> ServerChannelAuthorizer {
            switch what {
            case "headers":
                try ServerChannelAuthorizer(endpoint: endpoint, headers: [HTTPField.Name("X-App-Token")!: "hdr-LEAK"], transportSecurity: security, transport: transport)
            case "providers":
                try ServerChannelAuthorizer(endpoint: endpoint, headerProviders: [{ asked.withLock { $0 += 1 }; return [.authorization: "Bearer prov-LEAK"] }], transportSecurity: security, transport: transport)
            default:
                try ServerChannelAuthorizer(endpoint: endpoint, parameters: [("session", "param-LEAK")], transportSecurity: security, transport: transport)
            }
        }
        let error = await authorizationError { try await authorizer(.strict).authorize(socketID: "1.2", channelName: "private-a") }
        #expect(error?.qualifiedCode == "channels.auth.credential")
        #expect(error?.message.contains("plain http") == true)
        #expect(error?.message.contains("LEAK") == false)
        #expect(transport.sent.withLock { $0 } == 0)
        #expect(asked.withLock { $0 } == 0)
        // The explicit opt-in.
        let allowed = try authorizer(TransportSecurity(insecureHostsAllowed: ["auth.example.com"]))
        #expect(try await allowed.authorize(socketID: "1.2", channelName: "private-a").auth == "k:s")
        #expect(transport.sent.withLock { $0 } == 1)
    }

    @Test func nothingSecretOverPlainHTTPIsStillAllowed() async throws {
        let transport = RecordingTransport()
        let authorizer = try ServerChannelAuthorizer(endpoint: URL(string: "http://auth.example.com/pusher/auth")!, transport: transport)
        #expect(try await authorizer.authorize(socketID: "1.2", channelName: "private-a").auth == "k:s")
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func aRedirectToAnotherOriginIsRefused(status: Int) async throws {
        try await AuthTestServer.with { a in
            try await AuthTestServer.with { b in
                var target = URLComponents(url: a.url("redirect"), resolvingAgainstBaseURL: false)!
                target.queryItems = [URLQueryItem(name: "to", value: b.url("ok").absoluteString), URLQueryItem(name: "status", value: "\(status)")]
                let authorizer = try ServerChannelAuthorizer(
                    endpoint: target.url!, parameters: [("team", "param-secret")], headers: [HTTPField.Name("X-Test")!: "header-secret"],
                    credentialSource: StaticCredentialSource(.bearer("bearer-secret")))
                let error = await authorizationError { try await authorizer.authorize(socketID: "1.2", channelName: "private-a") }
                #expect(error?.qualifiedCode == "channels.auth.httpStatus")
                #expect(error?.status == status)
                #expect(await a.log.count == 1)
                #expect(await b.log.count == 0)
            }
        }
    }

    @Test func aRedirectWithinTheOriginIsFollowed() async throws {
        try await AuthTestServer.with { server in
            var target = URLComponents(url: server.url("redirect"), resolvingAgainstBaseURL: false)!
            target.queryItems = [URLQueryItem(name: "to", value: "/ok")]
            let authorizer = try ServerChannelAuthorizer(endpoint: target.url!, headers: [HTTPField.Name("X-Test")!: "header-secret"])
            #expect(try await authorizer.authorize(socketID: "1.2", channelName: "private-a").auth == "key:sig-for-private-a")
            #expect(await server.log.requests.map(\.testHeader) == ["header-secret", "header-secret"])
        }
    }
}
