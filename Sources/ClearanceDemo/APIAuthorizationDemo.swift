import Clearance
import ClearanceBloomreach
import ClearanceHTTP
import ClearanceServer
import ClearanceDevelopment
import Foundation
import HTTPTypes

/// The demo's first part: API authorization per endpoint, Bloomreach-style.
struct APIAuthorizationDemo {
    let servers: DemoServers
    let report: DemoReport

    private var base: URL { servers.apiServer.baseURL }
    private var api: DemoAPI { servers.api }

    func run() async {
        report.begin("API authorization per endpoint (Bloomreach-style: Token for public, customer JWT for private)")
        let mints = Locked(0)
        let customerToken = CachingCredentialSource(
            ClosureCredentialSource.bearerToken { [api] in
                mints.withLock { $0 += 1 }
                return try await api.mintCustomerToken(customerIDs: ["registered": "jane@example.com"], expiresAt: Date().addingTimeInterval(600))
            }, name: Bloomreach.customerTokenSource)

        await report.step("public endpoint: POST /track/v2/projects/{projectToken}/customers/events gets `Token <api key>`") {
            let client = try client(customerToken: customerToken)
            let (response, _) = try await client.send(.post, base.appending(path: "/track/v2/projects/demo/customers/events"), body: Data("{}".utf8))
            return (response.status == .ok, "HTTP \(response.status.code); credential sent: Credential(apiKey, \(Redactor.mask))")
        }

        await report.step("private endpoint: POST /webxp/projects/{projectToken}/appinbox/fetch gets `Bearer <customer JWT>`") {
            let client = try client(customerToken: customerToken)
            let (response, _) = try await client.send(.post, base.appending(path: "/webxp/projects/demo/appinbox/fetch"), body: Data("{}".utf8))
            let fetched = mints.withLock { $0 }
            return (response.status == .ok && fetched == 1, "HTTP \(response.status.code); customer tokens fetched from the provider: \(fetched)")
        }

        await report.step("expired customer token: 401 invalid_token → exactly one refresh → one retry → 200") {
            let expired = try await api.mintCustomerToken(customerIDs: ["registered": "jane@example.com"], expiresAt: Date().addingTimeInterval(-60))
            let fetches = Locked(0)
            let source = CachingCredentialSource(
                ClosureCredentialSource.bearerToken { [api] in
                    fetches.withLock { $0 += 1 }
                    return try await api.mintCustomerToken(customerIDs: ["registered": "jane@example.com"], expiresAt: Date().addingTimeInterval(600))
                }, name: Bloomreach.customerTokenSource, initial: .bearer(expired))
            let route = "/webxp/projects/{projectToken}/appinbox/fetch"
            let before = await api.stats.count(route)
            let client = try client(customerToken: source)
            let (response, _) = try await client.send(.post, base.appending(path: "/webxp/projects/demo/appinbox/fetch"), body: Data("{}".utf8))
            let sent = await api.stats.count(route) - before
            let refreshed = fetches.withLock { $0 }
            return (response.status == .ok && sent == 2 && refreshed == 1, "HTTP \(response.status.code); requests sent: \(sent); refreshes: \(refreshed)")
        }

        await report.step("provider returns nil: missingCredential, and nothing is sent") {
            let source = ClosureCredentialSource.bearerToken(name: Bloomreach.customerTokenSource) { nil }
            let before = await api.stats.total
            do {
                _ = try await client(customerToken: source).send(.post, base.appending(path: "/webxp/projects/demo/appinbox/fetch"), body: Data("{}".utf8))
                return (false, "the request was sent without a credential")
            } catch {
                let error = AuthorizationError(wrapping: error)
                let sent = await api.stats.total - before
                return (error.code == .missingCredential && sent == 0, "\(error.qualifiedCode): \(error.message)\nrequests sent: \(sent)")
            }
        }

        await report.step("redirects: same origin keeps the credential, another origin never sees it") {
            let authorizer = try RequestAuthorizer(policy: .always("api-key"), sources: ["api-key": StaticCredentialSource(.apiKey(api.apiKey))])
            let client = AuthorizedClient(authorizer: authorizer)
            let elsewhere = servers.otherServer.baseURL.appending(path: "/echo").absoluteString
            var same = URLComponents(url: base.appending(path: "/redirect"), resolvingAgainstBaseURL: false)!
            same.queryItems = [URLQueryItem(name: "to", value: "/echo")]
            var cross = same
            cross.queryItems = [URLQueryItem(name: "to", value: elsewhere)]
            let (_, sameBody) = try await client.send(.get, same.url!)
            let (_, crossBody) = try await client.send(.get, cross.url!)
            let sameSaw = try Self.field("authorization", in: sameBody)
            let crossSaw = try Self.field("authorization", in: crossBody)
            let otherAuthorized = await servers.other.stats.authorizedCount("echo")
            return (sameSaw == "present" && crossSaw == "absent" && otherAuthorized == 0,
                    "same origin (\(Origin(scheme: "http", host: "127.0.0.1", port: servers.apiServer.port))): Authorization \(sameSaw)\nother origin (\(Origin(scheme: "http", host: "127.0.0.1", port: servers.otherServer.port))): Authorization \(crossSaw)")
        }

        await report.step("plain http to a non-loopback host: refused before anything is sent") {
            let authorizer = try RequestAuthorizer(policy: .always("api-key"), sources: ["api-key": StaticCredentialSource(.apiKey(api.apiKey))])
            do {
                _ = try await AuthorizedClient(authorizer: authorizer).send(.get, URL(string: "http://api.example.invalid/echo")!)
                return (false, "the credential was sent over plain http")
            } catch {
                let error = AuthorizationError(wrapping: error)
                return (error.code == .misconfigured, "\(error.qualifiedCode): \(error.message)")
            }
        }

        await report.step("a server that always answers 401: two requests, one refresh, then unauthorized (no loop)") {
            let fetches = Locked(0)
            let source = CachingCredentialSource(ClosureCredentialSource(name: "token") {
                fetches.withLock { $0 += 1 }
                return .bearer("token-\(UUID().uuidString)")
            }, name: "token", initial: .bearer("token-initial"))
            let client = AuthorizedClient(authorizer: try RequestAuthorizer(policy: .always("token"), sources: ["token": source]))
            let before = await api.stats.count("always-401")
            do {
                _ = try await client.send(.get, base.appending(path: "/always-401"))
                return (false, "the request succeeded")
            } catch {
                let error = AuthorizationError(wrapping: error)
                let sent = await api.stats.count("always-401") - before
                let refreshed = fetches.withLock { $0 }
                return (error.code == .unauthorized && sent == 2 && refreshed == 1, "\(error.qualifiedCode) after \(sent) requests and \(refreshed) refresh")
            }
        }

        await report.step("misconfiguration (an empty API key, a policy naming an unknown source) is an error at configuration time", logs: [
            DemoLogExpectation("clearance.bloomreach", "misconfigured Bloomreach authorization"),
            DemoLogExpectation("clearance.authorizer", "misconfigured authorization policy"),
        ]) {
            // Advanced auth without a customer-token provider cannot even be written: Bloomreach.Authorization has no such case.
            var refusals: [String] = []
            do throws(AuthorizationError) {
                _ = try Bloomreach.authorizer(.advanced(apiKey: " ", customerTokens: CustomerTokenSource(notificationCenter: nil) { _ in nil }))
            } catch {
                refusals.append("\(error.qualifiedCode): \(error.message)")
            }
            do throws(AuthorizationError) {
                var policy = try Bloomreach.policy(advancedAuth: true)
                try policy.require(.source("loyalty-token"), for: "POST /loyalty/**")
                _ = try RequestAuthorizer(policy: policy, sources: [Bloomreach.apiKeySource: StaticCredentialSource(.apiKey(api.apiKey))])
            } catch {
                refusals.append("\(error.qualifiedCode): \(error.message)")
            }
            return (refusals.count == 2 && refusals.allSatisfy { $0.hasPrefix("clearance.misconfigured") }, refusals.joined(separator: "\n"))
        }
    }

    /// Bloomreach's policy with any customer-token source (the next part uses the preset's own).
    private func client(customerToken: any CredentialSource) throws(AuthorizationError) -> AuthorizedClient {
        AuthorizedClient(authorizer: try RequestAuthorizer(
            policy: Bloomreach.policy(advancedAuth: true),
            sources: [Bloomreach.apiKeySource: StaticCredentialSource(.apiKey(api.apiKey)), Bloomreach.customerTokenSource: customerToken]))
    }

    static func field(_ name: String, in body: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        return object?[name] as? String ?? "?"
    }
}
