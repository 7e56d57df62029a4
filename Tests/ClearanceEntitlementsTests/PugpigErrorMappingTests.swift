import Clearance
import ClearanceEntitlements
import ClearanceHTTP
import ClearanceTestSupport
import ClearanceTesting
import ClearanceWire
import Foundation
import HTTPTypes
import Testing

/// How every kind of answer maps to Pugpig's codes, on a scripted transport.
@Suite struct PugpigErrorMappingTests {
    static let base = URL(string: "https://subs.example.com/pugpig")!

    func provider(_ transport: ScriptedTransport, logs: LogCapture = LogCapture(), method: PugpigRequestMethod = .get, endpoints: PugpigEndpoints = .standard(base: base)) -> PugpigEntitlementProvider {
        PugpigEntitlementProvider(configuration: PugpigConfiguration(
            endpoints: endpoints, method: method, transport: transport, notificationCenter: nil, logger: logs.logger("pugpig")))
    }

    /// Answers by endpoint name (the last path component).
    func transport(_ answers: @escaping @Sendable (String, FormFields) -> ScriptedTransport.Answer) -> ScriptedTransport {
        ScriptedTransport { request, body in
            let endpoint = request.path.flatMap { $0.split(separator: "?").first }.map { String($0.split(separator: "/").last ?? "") } ?? ""
            let query = request.path.flatMap { $0.split(separator: "?", maxSplits: 1).dropFirst().first }.map(String.init) ?? ""
            let fields = FormFields(parsing: body.map { String(decoding: $0, as: UTF8.self) } ?? query)
            return answers(endpoint, fields)
        }
    }

    static let token = "<token>token-1</token>"

    @Test func a5xxIsUnknownWithTheStatusAndARedactedSnippet() async throws {
        let scripted = transport { endpoint, _ in
            endpoint == "sign_in" ? .xml(Self.token) : .xml("<html>Oops token=token-1 secret=hunter2hunter2</html>", status: 503)
        }
        let provider = provider(scripted)
        try await provider.signIn(username: "u", password: "p")
        do {
            try await provider.verify()
            Issue.record("a 503 is an error")
        } catch {
            #expect(error.code == .unknown)
            #expect(error.response?.status == 503)
            #expect(!error.message.contains("hunter2hunter2") && !error.message.contains("token-1"))
            #expect(error.response?.body.isEmpty == true)  // raw body not kept: it may carry a secret
        }
    }

    @Test func anUnparsable200IsUnknownAndATokenAnswerKeepsNoSnippet() async throws {
        let scripted = transport { endpoint, _ in
            endpoint == "sign_in" ? .xml("<token>leaked-token-value") : .xml("garbage")
        }
        do {
            try await provider(scripted).signIn(username: "u", password: "p")
            Issue.record("an unparsable answer is an error")
        } catch {
            #expect(error.code == .unknown && error.response?.status == 200)
            #expect(error.response?.bodySnippet.isEmpty == true)
            #expect(!"\(error)".contains("leaked-token-value"))
        }
    }

    @Test func aHostileAnswerIsUnknown() async throws {
        let scripted = transport { endpoint, _ in
            endpoint == "sign_in" ? .xml(Self.token) : .xml(#"<!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]><subscription state="active">&x;</subscription>"#)
        }
        let provider = provider(scripted)
        try await provider.signIn(username: "u", password: "p")
        await expectError(.unknown) { try await provider.verify() }
    }

    @Test func anAnswerOfAnotherKindIsUnknown() async throws {
        let scripted = transport { endpoint, _ in endpoint == "sign_in" ? .xml("<subscription state=\"active\"/>") : .xml(Self.token) }
        await expectError(.unknown) { try await provider(scripted).signIn(username: "u", password: "p") }
    }

    @Test func aTransportFailureIsANetworkFailure() async throws {
        let scripted = transport { _, _ in .fail(URLError(.cannotConnectToHost)) }
        do {
            try await provider(scripted).signIn(username: "u", password: "p")
            Issue.record("must fail")
        } catch {
            #expect(error.code == .networkFailure && error.underlying is URLError)
        }
    }

    @Test func credentialRefusalsWithoutAStatusOrWithAnotherAreUnknownWithTheMessage() async throws {
        let scripted = transport { endpoint, fields in
            switch endpoint {
            case "sign_in": .xml(Self.token)
            case "verify_subscription": .xml(#"<subscription state="active"/>"#)
            default: fields.first("product_id") == "a" ? .xml(#"<credentials><error message="Try again later"/></credentials>"#)
                : .xml(#"<credentials><error status="overloaded" message="Busy"/></credentials>"#)
            }
        }
        let provider = provider(scripted)
        try await provider.signIn(username: "u", password: "p")
        do {
            _ = try await provider.credentials(for: "a")
            Issue.record("refused")
        } catch {
            #expect(error.code == .unknown && error.message.contains("Try again later"))
        }
        do {
            _ = try await provider.credentials(for: "b")
            Issue.record("refused")
        } catch {
            #expect(error.code == .unknown && error.message.contains("status overloaded"))
        }
    }

    @Test func stillStaleAfterRenewalIsUnknownAndRenewsOnce() async throws {
        let scripted = transport { endpoint, _ in
            switch endpoint {
            case "sign_in", "renew_token": .xml("<token>t-\(UUID().uuidString)</token>")
            default: .xml(#"<subscription state="stale"/>"#)
            }
        }
        let provider = provider(scripted)
        try await provider.signIn(username: "u", password: "p")
        await expectError(.unknown) { try await provider.verify() }
        #expect(scripted.requests.filter { $0.request.path?.contains("renew_token") == true }.count == 1)
        #expect(await provider.isSignedIn)
    }

    @Test func aRenewalThatCannotReachTheServiceKeepsTheSession() async throws {
        let scripted = transport { endpoint, _ in
            switch endpoint {
            case "sign_in": .xml(Self.token)
            case "renew_token": .fail(URLError(.timedOut))
            default: .xml(#"<subscription state="stale"/>"#)
            }
        }
        let provider = provider(scripted)
        try await provider.signIn(username: "u", password: "p")
        await expectError(.networkFailure) { try await provider.verify() }
        #expect(await provider.isSignedIn)
    }

    @Test func anUnverifiableErrorAnswerFromVerifyIsUnknown() async throws {
        let scripted = transport { endpoint, _ in endpoint == "sign_in" ? .xml(Self.token) : .xml(#"<error status="weird" message="No"/>"#) }
        let provider = provider(scripted)
        try await provider.signIn(username: "u", password: "p")
        await expectError(.unknown) { try await provider.verify() }
    }

    @Test func aMissingEndpointIsNamed() async throws {
        let scripted = transport { _, _ in .xml(Self.token) }
        let provider = provider(scripted, endpoints: PugpigEndpoints(signIn: Self.base.appending(path: "sign_in")))
        try await provider.signIn(username: "u", password: "p")
        do {
            try await provider.verify()
            Issue.record("no verify endpoint")
        } catch {
            #expect(error.code == .unknown && error.message.contains("verify_subscription"))
        }
    }

    @Test func plainHTTPToAnotherHostIsRefusedBeforeAnythingIsSent() async throws {
        let scripted = transport { _, _ in .xml(Self.token) }
        let provider = provider(scripted, endpoints: .standard(base: URL(string: "http://subs.example.com/pugpig")!))
        await expectError(.unknown) { try await provider.signIn(username: "u", password: "p") }
        #expect(scripted.requests.isEmpty)
    }

    @Test func getKeepsTheQueryAndPostSendsAFormAndNeitherLogsASecret() async throws {
        let logs = LogCapture()
        let scripted = transport { endpoint, _ in
            endpoint == "sign_in" ? .xml("<token>secret-token-value</token>") : .xml(#"<subscription state="active"/>"#)
        }
        let endpoints = PugpigEndpoints(signIn: URL(string: "https://subs.example.com/pugpig/sign_in?app=reader")!, verifySubscription: Self.base.appending(path: "verify_subscription"))
        let get = provider(scripted, logs: logs, endpoints: endpoints)
        try await get.signIn(fields: [("email", "me@example.com"), ("password", "pa ss+word&")])
        try await get.verify()
        let signIn = scripted.requests[0]
        #expect(signIn.request.method == .get && signIn.body == nil)
        #expect(signIn.request.path == "/pugpig/sign_in?app=reader&email=me%40example.com&password=pa+ss%2Bword%26")
        #expect(scripted.requests[1].request.path == "/pugpig/verify_subscription?token=secret-token-value")

        let posted = ScriptedTransport { _, _ in .xml("<token>secret-token-value</token>") }
        try await provider(posted, logs: logs, method: .post).signIn(username: "me", password: "pa ss")
        #expect(posted.requests[0].request.method == .post)
        #expect(posted.requests[0].request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(posted.requests[0].body.map { String(decoding: $0, as: UTF8.self) } == "username=me&password=pa+ss")
        #expect(posted.requests[0].request.path == "/pugpig/sign_in")
        #expect(!logs.all.isEmpty)
        for secret in ["secret-token-value", "pa ss", "pa+ss"] { #expect(!logs.text.contains(secret)) }
    }
}
