import Clearance
import ClearanceEntitlements
import Foundation
import HTTPTypes
import Testing

/// Snapshots, access forms, credentials and errors: values that say what they hold and never a secret.
@Suite struct ModelTests {
    @Test func productAccessEncodesAsAllOrASortedArray() throws {
        let encoder = JSONEncoder()
        #expect(String(decoding: try encoder.encode(ProductAccess.all), as: UTF8.self) == #""all""#)
        #expect(String(decoding: try encoder.encode(ProductAccess.products(["b", "a"])), as: UTF8.self) == #"["a","b"]"#)
        #expect(try JSONDecoder().decode(ProductAccess.self, from: Data(#""all""#.utf8)) == .all)
        #expect(try JSONDecoder().decode(ProductAccess.self, from: Data(#"["x"]"#.utf8)) == .products(["x"]))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ProductAccess.self, from: Data(#""some""#.utf8)) }
        #expect(ProductAccess.all.contains("anything") && !ProductAccess.none.contains("anything"))
    }

    @Test func effectiveAccessPerState() {
        for state in SubscriptionState.allCases {
            let listed = EntitlementSnapshot.effectiveAccess(state: state, issues: ["a"])
            let unlisted = EntitlementSnapshot.effectiveAccess(state: state, issues: nil)
            switch state {
            case .active:
                #expect(listed == .products(["a"]) && unlisted == .all)
            case .inactive:
                #expect(listed == .products(["a"]) && unlisted == ProductAccess.none)
            case .unknown, .stale, .suspended, .signedOut:
                #expect(listed == ProductAccess.none && unlisted == ProductAccess.none, "\(state)")
            }
        }
    }

    @Test func aChangeIsInTheStateOrTheProductsOnly() {
        let date = Date(timeIntervalSince1970: 1_000)
        let active = EntitlementSnapshot(state: .active, access: .all, message: "Hi", fetchedAt: date)
        var later = active
        later.message = "Hello again"
        later.fetchedAt = date.addingTimeInterval(60)
        #expect(!later.differsInEntitlement(from: active))
        var fewer = active
        fewer.access = .products(["a"])
        #expect(fewer.differsInEntitlement(from: active))
        #expect(EntitlementSnapshot.signedOut(at: date).differsInEntitlement(from: active))
        #expect(active.differsInEntitlement(from: nil))
        let change = EntitlementChange(provider: "p", previous: active, current: .signedOut(at: date))
        #expect(change.signedOut && change.stateChanged && change.accessChanged)
    }

    @Test func anOfflineStatusStopsGrantingWhenTheGraceEnds() {
        let snapshot = EntitlementSnapshot(state: .active, access: .all, fetchedAt: Date())
        #expect(EntitlementStatus(snapshot: snapshot, freshness: .offline(graceEndsAt: Date())).grants("x"))
        #expect(EntitlementStatus(snapshot: snapshot, freshness: .offline(graceEndsAt: Date())).isOffline)
        #expect(!EntitlementStatus(snapshot: snapshot, freshness: .graceExpired).grants("x"))
        #expect(EntitlementStatus(snapshot: snapshot, freshness: .fresh).grants("x"))
    }

    @Test func contentCredentialsNeverShowTheirSecrets() throws {
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Edge-Token")!] = "edge-secret-value"
        let credentials = ContentCredentials(userID: "reader", password: "edition-secret-password", headers: headers)
        var dumped = ""
        dump(credentials, to: &dumped)
        for text in ["\(credentials)", String(reflecting: credentials), dumped, "\(Mirror(reflecting: credentials).children.map { "\($0.value)" })"] {
            #expect(!text.contains("edition-secret-password") && !text.contains("edge-secret-value"), "\(text)")
            #expect(text.contains("reader"))
        }
        #expect("\(credentials)".contains("X-Edge-Token"))
    }

    @Test func contentCredentialsGoOnAsRFC7617BasicPlusHeaders() throws {
        var headers = HTTPFields()
        headers[.cookie] = "cdn=1"
        let credentials = ContentCredentials(userID: "lecteur", password: "mot de passe é", headers: headers)
        var request = HTTPRequest(method: .get, scheme: "https", authority: "cdn.example.com", path: "/a")
        try credentials.apply(to: &request)
        #expect(request.headerFields[.authorization] == "Basic " + Data("lecteur:mot de passe é".utf8).base64EncodedString())
        #expect(request.headerFields[.cookie] == "cdn=1")
        credentials.remove(from: &request)
        #expect(request.headerFields[.authorization] == nil && request.headerFields[.cookie] == nil)
        #expect(throws: EntitlementError.self) { try ContentCredentials(userID: "a:b", password: "p").basicCredential() }
    }

    @Test func everyErrorHasAStableQualifiedCodeAndKeepsWhatCausedIt() {
        let answer = HTTPErrorResponse(status: 503, body: Data("Service down; token=abcdef123456".utf8))
        let errors: [(EntitlementError, String)] = [
            (.networkFailure(underlying: URLError(.notConnectedToInternet)), "entitlements.networkFailure"),
            (.productUnavailable(product: "issue-1", message: "Not in your plan"), "entitlements.productUnavailable"),
            (.subscriptionExpired(state: .inactive, message: "Lapsed"), "entitlements.subscriptionExpired"),
            (.unknown(reason: "the verify_subscription endpoint failed", response: answer), "entitlements.unknown"),
            (.purchaseCancelled, "entitlements.purchaseCancelled"),
            (.notRecognised(message: "Invalid credentials"), "entitlements.notRecognised"),
        ]
        #expect(Set(errors.map(\.1)).count == EntitlementError.Code.allCases.count)
        for (error, code) in errors {
            #expect(error.qualifiedCode == code)
            #expect(!error.message.isEmpty && "\(error)".hasPrefix(code))
        }
        let unknown = errors[3].0
        #expect(unknown.response?.status == 503)
        #expect(unknown.message.contains("HTTP 503") && !unknown.message.contains("abcdef123456"))
        #expect(errors[0].0.underlying is URLError)
        #expect(errors[5].0.serverMessage == "Invalid credentials" && errors[5].0.message.contains("Invalid credentials"))
        #expect(EntitlementError.networkFailure(underlying: CancellationError()).isCancellation)
        #expect(EntitlementError.subscriptionExpired(state: .signedOut, message: nil).message.contains("signed out"))
    }

    @Test func theStoredSessionNeverShowsItsSecrets() {
        let stored = StoredEntitlements(token: "tok-secret-123", globalAuthPassword: "global-secret-456")
        #expect(!"\(stored)".contains("secret"))
    }
}
