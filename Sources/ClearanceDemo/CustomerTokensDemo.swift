import Clearance
import ClearanceBloomreach
import ClearanceDevelopment
import ClearanceHTTP
import ClearanceServer
import ClearanceStore
import ClearanceWire
import Foundation
import HTTPTypes

/// The demo's customer-token part (Bloomreach advanced auth): a `CustomerTokenSource` against
/// the demo API, which verifies every token with `CustomerTokenMiddleware`.
struct CustomerTokensDemo {
    let servers: DemoServers
    let report: DemoReport

    private var api: DemoAPI { servers.api }
    private var inbox: URL { servers.apiServer.baseURL.appending(path: "/webxp/projects/demo/appinbox/fetch") }
    private static let route = "/webxp/projects/{projectToken}/appinbox/fetch"
    private static let jane: CustomerIDs = ["registered": "jane@example.com"]
    private static let john: CustomerIDs = ["registered": "john@example.com"]
    /// `CustomerTokenSource`'s logger: what it says about customer switches and refusals.
    private static let logLabel = "clearance.bloomreach.customer-token"

    func run() async {
        report.begin("Customer tokens (Bloomreach advanced auth): expiry from the JWT, customer switches, refusals")
        await expiryReadFromTheToken()
        await customerSwitchDuringAFetch()
        await rejectedTokenRefreshedOnce()
        await anonymousSendsNothing()
        await storedPerCustomer()
        await serverRefusals()
    }

    private func client(_ tokens: CustomerTokenSource) throws(AuthorizationError) -> AuthorizedClient {
        AuthorizedClient(authorizer: try Bloomreach.authorizer(.advanced(apiKey: api.apiKey, customerTokens: tokens)))
    }

    /// The app's backend, as the demo API mints: `ttl` seconds from now.
    private func backend(ttl: TimeInterval = 600) -> CustomerTokenSource.Provider {
        { [api] customer in try await api.mintCustomerToken(customerIDs: customer.values, expiresAt: Date().addingTimeInterval(ttl)) }
    }

    private func expiryReadFromTheToken() async {
        await report.step("expiry read from the token: renewed 60 s before its exp, never earlier") {
            let offset = Locked<TimeInterval>(0), calls = Locked(0)
            let now: @Sendable () -> Date = { Date().addingTimeInterval(offset.withLock { $0 }) }
            // The backend mints on the same (moved) clock: 600 s from the source's now.
            let tokens = CustomerTokenSource(customer: Self.jane, leeway: 60, notificationCenter: nil, now: now) { [api] customer in
                calls.withLock { $0 += 1 }
                return try await api.mintCustomerToken(customerIDs: customer.values, expiresAt: now().addingTimeInterval(600))
            }
            let events = DemoEvents(tokens)
            let client = try client(tokens)
            let minted = Date()
            let (first, _) = try await client.send(.post, inbox, body: Data("{}".utf8))
            let expiry = tokens.expiresAt ?? .distantPast
            offset.withLock { $0 = 530 }
            let (cached, _) = try await client.send(.post, inbox, body: Data("{}".utf8))
            let callsAt530 = calls.withLock { $0 }
            offset.withLock { $0 = 545 }
            let (renewed, _) = try await client.send(.post, inbox, body: Data("{}".utf8))
            let seen = await events.names(count: 3)
            let passed = [first, cached, renewed].allSatisfy { $0.status == .ok } && abs(expiry.timeIntervalSince(minted) - 600) <= 1
                && callsAt530 == 1 && calls.withLock { $0 } == 2 && seen == ["received", "about_to_expire", "received"]
            return (passed, """
                exp read from the JWT: \(Int(expiry.timeIntervalSince(minted).rounded())) s after minting
                at +530 s: the cached token (provider calls: \(callsAt530)); at +545 s: about_to_expire → renewed (provider calls: \(calls.withLock { $0 }))
                events: \(seen.joined(separator: ", "))
                """)
        }
    }

    private func customerSwitchDuringAFetch() async {
        await report.step("customer switch while jane's token is being fetched: it is thrown away, only john's is sent", logs: [
            DemoLogExpectation(Self.logLabel, "customer changed; the previous customer's token was dropped"),
            DemoLogExpectation(Self.logLabel, "a customer token arrived after the customer changed; thrown away"),
        ]) {
            let (entered, enteredSignal) = AsyncStream<Void>.makeStream()
            let (gate, opener) = AsyncStream<Void>.makeStream()
            let mint = backend()
            let tokens = CustomerTokenSource(customer: Self.jane, notificationCenter: nil) { customer in
                if customer == Self.jane {                         // jane's backend is slow
                    enteredSignal.yield()
                    for await _ in gate { break }
                }
                return try await mint(customer)
            }
            let events = DemoEvents(tokens)
            let client = try client(tokens)
            let before = await api.stats.customers.count
            let janesRequest = Task { try await client.send(.post, inbox, body: Data("{}".utf8)) }
            for await _ in entered { break }
            await tokens.identify(Self.john)
            let johnsRequest = Task { try await client.send(.post, inbox, body: Data("{}".utf8)) }
            _ = try await johnsRequest.value
            opener.yield()
            let (late, _) = try await janesRequest.value
            let seen = await events.names(count: 3)
            let sent = await api.stats.customers.dropFirst(before).map { $0["registered"] ?? "?" }
            return (late.status == .ok && sent == ["john@example.com", "john@example.com"] && Set(seen) == ["customer_changed", "received", "discarded"],
                    "customers the server saw after the switch: \(sent.joined(separator: ", "))\nevents: \(seen.joined(separator: ", "))")
        }
    }

    private func rejectedTokenRefreshedOnce() async {
        await report.step("rejected token (signed with a retired secret): 401 → rejected → one refresh → one retry → 200", logs: [
            DemoLogExpectation(Self.logLabel, "the server refused the customer token; fetching a new one"),
        ]) {
            let retired = await CustomerTokenMinter(key: try CustomerTokenKey(id: DemoAPI.customerTokenKeyID, secret: String(repeating: "retired!", count: 4)))
            let calls = Locked(0)
            let mint = backend()
            let tokens = CustomerTokenSource(customer: Self.jane, notificationCenter: nil) { customer in
                let call = calls.withLock { $0 += 1; return $0 }
                return call == 1 ? try await retired.mint(customerIDs: customer.values, ttl: 600) : try await mint(customer)
            }
            let events = DemoEvents(tokens)
            let before = await api.stats.count(Self.route)
            let (response, _) = try await client(tokens).send(.post, inbox, body: Data("{}".utf8))
            let sent = await api.stats.count(Self.route) - before
            let seen = await events.names(count: 3)
            return (response.status == .ok && sent == 2 && calls.withLock { $0 } == 2 && seen == ["received", "rejected", "received"],
                    "HTTP \(response.status.code); requests sent: \(sent); provider calls: \(calls.withLock { $0 })\nevents: \(seen.joined(separator: ", "))")
        }
    }

    private func anonymousSendsNothing() async {
        await report.step("anonymize(): the token is dropped at once; no token, no request (not_provided)", logs: [
            DemoLogExpectation(Self.logLabel, "customer changed; the previous customer's token was dropped"),
        ]) {
            let tokens = CustomerTokenSource(customer: Self.jane, notificationCenter: nil, provider: backend())
            let events = DemoEvents(tokens)
            let client = try client(tokens)
            _ = try await client.send(.post, inbox, body: Data("{}".utf8))
            await tokens.anonymize()
            let before = await api.stats.total
            do {
                _ = try await client.send(.post, inbox, body: Data("{}".utf8))
                return (false, "a request was sent for an anonymous customer")
            } catch {
                let error = AuthorizationError(wrapping: error)
                let sent = await api.stats.total - before
                let seen = await events.names(count: 3)
                return (error.code == .missingCredential && sent == 0 && seen == ["received", "customer_changed", "not_provided"],
                        "\(error.qualifiedCode) (\(error.underlying.map { "\($0)" } ?? "")); requests sent: \(sent)\nevents: \(seen.joined(separator: ", "))")
            }
        }
    }

    private func storedPerCustomer() async {
        await report.step("the token kept in the encrypted store, per customer: restored for jane at relaunch, never for john") {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clearance-demo-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let key = try SessionStoreKey.loadOrCreate(file: directory.appendingPathComponent("session.key"))
            let calls = Locked<[String]>([])
            let mint = backend()
            func launch(as customer: CustomerIDs) -> CustomerTokenSource {
                CustomerTokenSource(customer: customer, store: StoredCustomerToken.fileStore(at: directory.appendingPathComponent("customer-token.json"), key: key), notificationCenter: nil) { customer in
                    calls.withLock { $0.append(customer.values["registered"] ?? "?") }
                    return try await mint(customer)
                }
            }
            let janes = try await launch(as: Self.jane).credential()
            let relaunched = try await launch(as: Self.jane).credential()
            let johns = try await launch(as: Self.john).credential()
            let asked = calls.withLock { $0 }
            return (relaunched == janes && johns != janes && asked == ["jane@example.com", "john@example.com"],
                    "provider asked for: \(asked.joined(separator: ", ")) (jane's relaunch restored her token from the store)")
        }
    }

    private func serverRefusals() async {
        await report.step("the server refuses alg none, another algorithm, an unknown kid, an expired or tampered token: 401 saying why, never echoing it") {
            let good = try await api.mintCustomerToken(customerIDs: Self.jane.values, expiresAt: Date().addingTimeInterval(600))
            let parts = good.split(separator: ".").map(String.init)
            let segment = { (json: String) in Base64URL.encode(Data(json.utf8)) }
            let unknownKey = await CustomerTokenMinter(key: try CustomerTokenKey(id: "some-other-key", secret: String(repeating: "k", count: 32)))
            let forged: [(String, String)] = [
                ("alg none", [segment(#"{"alg":"none","kid":"\#(DemoAPI.customerTokenKeyID)"}"#), parts[1], ""].joined(separator: ".")),
                ("HS512", [segment(#"{"alg":"HS512","kid":"\#(DemoAPI.customerTokenKeyID)"}"#), parts[1], parts[2]].joined(separator: ".")),
                ("unknown kid", try await unknownKey.mint(customerIDs: Self.jane.values, ttl: 600)),
                ("expired", try await api.mintCustomerToken(customerIDs: Self.jane.values, expiresAt: Date().addingTimeInterval(-120))),
                ("tampered", [parts[0], segment(#"{"sub":{"registered":"mallory@example.com"}}"#), parts[2]].joined(separator: ".")),
            ]
            var lines: [String] = [], passed = true
            for (name, token) in forged {
                var request = HTTPRequest(method: .post, url: inbox)
                request.headerFields[.authorization] = "Bearer \(token)"
                let (response, body) = try await AsyncHTTPClientHTTPTransport.shared.send(request, body: Data("{}".utf8))
                let text = String(decoding: body, as: UTF8.self)
                let code = (JSONValue(parsing: text)?["error"]?.stringValue) ?? "?"
                passed = passed && response.status == .unauthorized && code.hasPrefix("customer_token.") && !token.split(separator: ".").contains { $0.count > 8 && text.contains($0) }
                lines.append("\(name): HTTP \(response.status.code) \(code)")
            }
            return (passed, lines.joined(separator: "\n"))
        }
    }
}

/// The first events of a source, for a step's report.
private struct DemoEvents {
    let stream: AsyncStream<CustomerTokenEvent>

    init(_ source: CustomerTokenSource) {
        stream = source.events
    }

    /// The names of the first `count` events; none when they have not all come within two seconds.
    func names(count: Int) async -> [String] {
        await withTaskGroup(of: [String].self) { group in
            group.addTask {
                var names: [String] = []
                for await event in stream {
                    names.append(event.name)
                    if names.count == count { break }
                }
                return names
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(2))
                return []
            }
            let first = await group.next() ?? []
            group.cancelAll()
            return first
        }
    }
}
