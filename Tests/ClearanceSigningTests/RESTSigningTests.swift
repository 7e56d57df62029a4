import ClearanceSigning
import Foundation
import Testing

/// Pusher HTTP API request signing and the hub-side verifier.
struct RESTSigningTests {
    let signer: RESTRequestSigner
    let verifier: RESTRequestVerifier
    let timestamp: Int64 = 1_700_000_000
    let body = Data(#"{"name":"e","channels":["c"],"data":"{}"}"#.utf8)

    init() throws {
        signer = try RESTRequestSigner(appID: "42", key: "rest-key", secret: "rest-secret")
        verifier = try RESTRequestVerifier(key: "rest-key", secret: "rest-secret")
    }

    var now: Date { Date(timeIntervalSince1970: TimeInterval(timestamp)) }

    func signedPost() throws -> RESTRequestSignature {
        try signer.sign(method: "POST", path: signer.eventsPath, body: body, timestamp: timestamp)
    }

    @Test func configuration() throws {
        #expect(throws: SigningError.invalidAppID) { try RESTRequestSigner(appID: "", key: "k", secret: "s") }
        #expect(throws: SigningError.invalidAppID) { try RESTRequestSigner(appID: "1/2", key: "k", secret: "s") }
        #expect(throws: SigningError.invalidKey) { try RESTRequestSigner(appID: "1", key: "", secret: "s") }
        #expect(throws: SigningError.emptySecret) { try RESTRequestSigner(appID: "1", key: "k", secret: "") }
        #expect(throws: SigningError.invalidKey) { try RESTRequestVerifier(key: "a:b", secret: "s") }
        #expect(throws: SigningError.emptySecret) { try RESTRequestVerifier(key: "k", secret: "") }
        #expect(signer.eventsPath == "/apps/42/events")
        #expect(signer.batchEventsPath == "/apps/42/batch_events")
        #expect(signer.channelsPath == "/apps/42/channels")
    }

    @Test func stringToSignSortsAndDoesNotEscape() throws {
        let signature = try signer.sign(
            method: "get", path: "/apps/42/channels",
            query: ["info": "user_count,subscription_count", "filter_by_prefix": "presence-a b=c;d"],
            body: nil, timestamp: timestamp)
        #expect(signature.stringToSign == """
            GET
            /apps/42/channels
            auth_key=rest-key&auth_timestamp=1700000000&auth_version=1.0&filter_by_prefix=presence-a b=c;d&info=user_count,subscription_count
            """)
        #expect(signature.bodyMD5 == nil)
        #expect(signature.queryParameters["body_md5"] == nil)
        #expect(signature.queryParameters["filter_by_prefix"] == "presence-a b=c;d")
        #expect(signature.percentEncodedQuery.contains("&filter_by_prefix=presence-a%20b%3Dc%3Bd&info="))
        #expect(signature.sortedQueryItems.map(\.name) == [
            "auth_key", "auth_signature", "auth_timestamp", "auth_version", "filter_by_prefix", "info",
        ])
        try verifier.verify(method: "GET", path: "/apps/42/channels", query: signature.queryParameters, body: nil, now: now)
        let verified = try verifier.verify(method: "GET", path: "/apps/42/channels", percentEncodedQuery: signature.percentEncodedQuery, body: nil, now: now)
        #expect(verified.parameters.all == signature.queryParameters)
        // An empty body is no body.
        let empty = try signer.sign(method: "GET", path: "/apps/42/channels", body: Data(), timestamp: timestamp)
        #expect(empty.bodyMD5 == nil)
    }

    @Test func signerRejectsReservedAndDuplicateParameters() {
        #expect(throws: SigningError.reservedParameter("auth_key")) {
            try signer.sign(method: "GET", path: "/", query: ["auth_key": "x"], body: nil, timestamp: timestamp)
        }
        #expect(throws: SigningError.reservedParameter("Body_MD5")) {
            try signer.sign(method: "GET", path: "/", query: ["Body_MD5": "x"], body: nil, timestamp: timestamp)
        }
        #expect(throws: SigningError.invalidParameterName("INFO")) {
            try signer.sign(method: "GET", path: "/", query: ["info": "a", "INFO": "b"], body: nil, timestamp: timestamp)
        }
    }

    @Test func verifierAcceptsTheWholeWindow() throws {
        let signed = try signedPost()
        for offset in [-600.0, -599.9, 0, 599, 600, 600.9] {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: signed.queryParameters, body: body,
                                now: now.addingTimeInterval(offset))
        }
        #expect(verifier.timestampWindow == 600)
    }

    @Test func expiredTimestamp() throws {
        let signed = try signedPost()
        #expect(throws: SigningError.expiredTimestamp) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: signed.queryParameters, body: body,
                                now: now.addingTimeInterval(601))
        }
        let strict = try RESTRequestVerifier(key: "rest-key", secret: "rest-secret", timestampWindow: 30)
        #expect(throws: SigningError.expiredTimestamp) {
            try strict.verify(method: "POST", path: signer.eventsPath, query: signed.queryParameters, body: body,
                              now: now.addingTimeInterval(31))
        }
    }

    @Test func futureTimestamp() throws {
        let signed = try signedPost()
        #expect(throws: SigningError.futureTimestamp) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: signed.queryParameters, body: body,
                                now: now.addingTimeInterval(-601))
        }
    }

    @Test func badBodyMD5() throws {
        let signed = try signedPost()
        // The body changed after signing: the query (and its signature) is intact, the MD5 is not.
        #expect(throws: SigningError.bodyMD5Mismatch) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: signed.queryParameters,
                                body: Data(#"{"name":"evil"}"#.utf8), now: now)
        }
        // A body on a request signed without one.
        let get = try signer.sign(method: "GET", path: signer.channelsPath, body: nil, timestamp: timestamp)
        #expect(throws: SigningError.missingParameter("body_md5")) {
            try verifier.verify(method: "GET", path: signer.channelsPath, query: get.queryParameters, body: body, now: now)
        }
        // The Python library sends body_md5 of the empty body on GET; that is accepted, anything else is not.
        var withEmptyMD5 = get.queryParameters
        withEmptyMD5["body_md5"] = "d41d8cd98f00b204e9800998ecf8427e"
        let resigned = try resign(withEmptyMD5, method: "GET", path: signer.channelsPath)
        try verifier.verify(method: "GET", path: signer.channelsPath, query: resigned, body: nil, now: now)
        var wrongEmptyMD5 = get.queryParameters
        wrongEmptyMD5["body_md5"] = "00000000000000000000000000000000"
        #expect(throws: SigningError.bodyMD5Mismatch) {
            try verifier.verify(method: "GET", path: signer.channelsPath,
                                query: try resign(wrongEmptyMD5, method: "GET", path: signer.channelsPath), body: nil, now: now)
        }
    }

    @Test(arguments: ["auth_key", "auth_signature", "auth_timestamp", "auth_version", "body_md5"])
    func missingParameter(_ name: String) throws {
        var query = try signedPost().queryParameters
        query[name] = nil
        #expect(throws: SigningError.missingParameter(name)) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: query, body: body, now: now)
        }
    }

    @Test func wrongSignature() throws {
        let signed = try signedPost()
        var query = signed.queryParameters
        query["auth_signature"] = String(signed.authSignature.reversed())
        #expect(throws: SigningError.invalidSignature) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: query, body: body, now: now)
        }
        // Tampered path, method, parameters, timestamp.
        #expect(throws: SigningError.invalidSignature) {
            try verifier.verify(method: "POST", path: "/apps/43/events", query: signed.queryParameters, body: body, now: now)
        }
        #expect(throws: SigningError.invalidSignature) {
            try verifier.verify(method: "PUT", path: signer.eventsPath, query: signed.queryParameters, body: body, now: now)
        }
        var extra = signed.queryParameters
        extra["info"] = "x"
        #expect(throws: SigningError.invalidSignature) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: extra, body: body, now: now)
        }
        var later = signed.queryParameters
        later["auth_timestamp"] = String(timestamp + 1)
        #expect(throws: SigningError.invalidSignature) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: later, body: body, now: now)
        }
        let otherSecret = try RESTRequestVerifier(key: "rest-key", secret: "other")
        #expect(!otherSecret.isValid(method: "POST", path: signer.eventsPath, query: signed.queryParameters, body: body, now: now))
        #expect(verifier.isValid(method: "post", path: signer.eventsPath, query: signed.queryParameters, body: body, now: now))
    }

    @Test func otherFailures() throws {
        let signed = try signedPost()
        var query = signed.queryParameters
        query["auth_key"] = "another-key"
        #expect(throws: SigningError.unknownKey) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: query, body: body, now: now)
        }
        query = signed.queryParameters
        query["auth_version"] = "2.0"
        #expect(throws: SigningError.unsupportedAuthVersion) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: query, body: body, now: now)
        }
        for bad in ["", "12a", "-5", "1.5", "9999999999999999999999"] {
            query = signed.queryParameters
            query["auth_timestamp"] = bad
            #expect(throws: SigningError.invalidTimestamp) {
                try verifier.verify(method: "POST", path: signer.eventsPath,
                                    query: try resign(query, method: "POST", path: signer.eventsPath), body: body, now: now)
            }
        }
        query = signed.queryParameters
        query["AUTH_KEY"] = "rest-key"
        #expect(throws: SigningError.invalidParameterName("AUTH_KEY")) {
            try verifier.verify(method: "POST", path: signer.eventsPath, query: query, body: body, now: now)
        }
    }

    /// What is verified is what is used: the query is read the one way it is signed.
    @Test func aQueryIsReadTheOneWayItIsSigned() throws {
        let get = try signer.sign(method: "GET", path: signer.channelsPath, query: ["filter_by_prefix": "presence-", "info": "user_count"], now: now)
        let verified = try verifier.verify(method: "GET", path: signer.channelsPath, percentEncodedQuery: get.percentEncodedQuery, body: nil, now: now)
        #expect(verified.parameters["filter_by_prefix"] == "presence-")
        #expect(verified.parameters["info"] == "user_count")
        #expect(verified.body.isEmpty)

        // A captured query with a name in another case: signed the same, read differently.
        let recased = get.percentEncodedQuery.replacingOccurrences(of: "filter_by_prefix", with: "Filter_By_Prefix")
        #expect(throws: SigningError.invalidParameterName("Filter_By_Prefix")) {
            try verifier.verify(method: "GET", path: signer.channelsPath, percentEncodedQuery: recased, body: nil, now: now)
        }
        // `%26` and `%3D` folding two parameters into one: the same string to sign.
        let folded = get.percentEncodedQuery.replacingOccurrences(of: "filter_by_prefix=presence-&info=user_count", with: "filter_by_prefix=presence-%26info%3Duser_count")
        #expect(folded != get.percentEncodedQuery)
        #expect(throws: SigningError.ambiguousParameter("filter_by_prefix")) {
            try verifier.verify(method: "GET", path: signer.channelsPath, percentEncodedQuery: folded, body: nil, now: now)
        }
        let prefixed = try signer.sign(method: "GET", path: signer.channelsPath, query: ["filter_by_prefix": "private-a=b"], now: now)
        let nameWithEquals = prefixed.percentEncodedQuery.replacingOccurrences(of: "filter_by_prefix=private-a%3Db", with: "filter_by_prefix%3Dprivate-a=b")
        #expect(nameWithEquals != prefixed.percentEncodedQuery)
        #expect(throws: SigningError.invalidParameterName("filter_by_prefix=private-a")) {
            try verifier.verify(method: "GET", path: signer.channelsPath, percentEncodedQuery: nameWithEquals, body: nil, now: now)
        }
        // The same name twice, and bad percent-encoding.
        #expect(throws: SigningError.duplicateParameter("info")) {
            try verifier.verify(method: "GET", path: signer.channelsPath, percentEncodedQuery: get.percentEncodedQuery + "&info=x", body: nil, now: now)
        }
        #expect(throws: SigningError.malformedQuery) {
            try verifier.verify(method: "GET", path: signer.channelsPath, percentEncodedQuery: get.percentEncodedQuery + "&x=%zz", body: nil, now: now)
        }
        // The signer refuses to sign what the verifier would refuse.
        #expect(throws: SigningError.invalidParameterName("Info")) { try signer.sign(method: "GET", path: signer.channelsPath, query: ["Info": "x"], now: now) }
        #expect(throws: SigningError.ambiguousParameter("info")) { try signer.sign(method: "GET", path: signer.channelsPath, query: ["info": "a&b"], now: now) }
    }

    /// Re-signs arbitrary parameters with the test secret (to reach checks after the signature).
    private func resign(_ query: [String: String], method: String, path: String) throws -> [String: String] {
        var unsigned = query
        unsigned["auth_signature"] = nil
        let stringToSign = method + "\n" + path + "\n" + unsigned
            .map { ($0.key.lowercased(), $0.value) }
            .sorted { $0.0 < $1.0 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
        let webhook = try WebhookSigner(key: "rest-key", secret: "rest-secret")  // the same HMAC-SHA256 hex
        unsigned["auth_signature"] = webhook.signature(body: Data(stringToSign.utf8))
        return unsigned
    }
}
