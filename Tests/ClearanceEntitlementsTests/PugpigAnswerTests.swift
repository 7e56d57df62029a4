import Foundation
import HTTPTypes
import Testing
@testable import ClearanceEntitlements

/// Every documented Pugpig answer parses; every hostile document is refused.
@Suite struct PugpigAnswerTests {
    func root(_ xml: String) throws -> PugpigXMLElement {
        try PugpigXMLDocument.parse(Data(xml.utf8))
    }

    // MARK: sign_in and renew_token

    @Test func aTokenWithAndWithoutGlobalAuthPassword() throws {
        #expect(PugpigTokenAnswer(try root("<token>abc123</token>")) == .token("abc123", globalAuthPassword: nil))
        #expect(PugpigTokenAnswer(try root(#"<?xml version="1.0"?><!-- signed in --><token global_auth_password="g-secret"> abc123 </token>"#))
            == .token("abc123", globalAuthPassword: "g-secret"))
        #expect(PugpigTokenAnswer(try root("<token></token>")) == nil)
        #expect(PugpigTokenAnswer(try root("<subscription/>")) == nil)
    }

    @Test func errorsWithAndWithoutStatus() throws {
        #expect(PugpigTokenAnswer(try root(#"<error status="notrecognised" message="Invalid credentials"/>"#))
            == .error(PugpigErrorElement(status: "notrecognised", message: "Invalid credentials")))
        #expect(PugpigTokenAnswer(try root(#"<error message="Try later"/>"#)) == .error(PugpigErrorElement(status: nil, message: "Try later")))
        #expect(PugpigTokenAnswer(try root("<error>Plain text</error>")) == .error(PugpigErrorElement(status: nil, message: "Plain text")))
        #expect(PugpigTokenAnswer(try root("<error/>")) == .error(PugpigErrorElement(status: nil, message: nil)))
    }

    // MARK: verify_subscription

    @Test(arguments: [
        ("active", SubscriptionState.active), ("inactive", .inactive), ("stale", .stale), ("suspended", .suspended),
        ("unknown", .unknown), ("expired-ish", .unknown), ("", .unknown),
    ])
    func everyStateAndAnythingElseIsUnknown(word: String, state: SubscriptionState) throws {
        guard case .subscription(let parsed, _, _, _)? = PugpigSubscriptionAnswer(try root(#"<subscription state="\#(word)"/>"#)) else {
            Issue.record("not a subscription"); return
        }
        #expect(parsed == state)
        #expect(SubscriptionState(pugpig: "signedOut") == .unknown)  // never read from a server
    }

    @Test func aFullSubscriptionAnswerWithCommentsEverywhere() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- before -->
            <subscription state="active" message="Gold &amp; friends">
              <!-- inside -->
              <userinfo><category scheme="http://schema.pugpig.com/attribute/tier" value="gold"/><!-- c --><category scheme="region" value="eu"/></userinfo>
              <issues><issue>issue-1</issue><!-- c --><issue> issue-2 </issue></issues>
            </subscription>
            <!-- after -->
            """
        let answer = try #require(PugpigSubscriptionAnswer(try root(xml)))
        #expect(answer == .subscription(
            state: .active, message: "Gold & friends",
            categories: [UserInfoCategory(scheme: "http://schema.pugpig.com/attribute/tier", value: "gold"), UserInfoCategory(scheme: "region", value: "eu")],
            issues: ["issue-1", "issue-2"]))
        let snapshot = try #require(answer.snapshot(at: Date(timeIntervalSince1970: 0)))
        #expect(snapshot.access == .products(["issue-1", "issue-2"]))
        #expect(snapshot.grants("issue-2") && !snapshot.grants("issue-3"))
    }

    @Test func accessFormsFollowPugpigsRules() throws {
        func access(_ xml: String) throws -> ProductAccess? { PugpigSubscriptionAnswer(try root(xml))?.snapshot(at: Date())?.access }
        #expect(try access(#"<subscription state="active"/>"#) == .all)                      // no <issues>: every issue
        #expect(try access(#"<subscription state="active"><issues/></subscription>"#) == ProductAccess.none)  // empty: none
        #expect(try access(#"<subscription state="active"><issues><issue>a</issue></issues></subscription>"#) == .products(["a"]))
        #expect(try access(#"<subscription state="inactive"/>"#) == ProductAccess.none)       // lapsed: nothing…
        #expect(try access(#"<subscription state="inactive"><issues><issue>a</issue></issues></subscription>"#) == .products(["a"]))  // …but what it bought
        #expect(try access(#"<subscription state="suspended"><issues><issue>a</issue></issues></subscription>"#) == ProductAccess.none)
        #expect(try access(#"<subscription state="unknown"/>"#) == ProductAccess.none)
        #expect(PugpigSubscriptionAnswer(try root(#"<error status="x" message="m"/>"#)) == .error(PugpigErrorElement(status: "x", message: "m")))
    }

    // MARK: edition_credentials

    @Test func credentialsWithExtraHeaders() throws {
        let xml = #"<credentials><userid>reader-7</userid><password>p@ss</password><header name="X-Edge-Token">edge-1</header><header name="Cookie">cdn=abc</header></credentials>"#
        guard case .credentials(let credentials)? = PugpigCredentialsAnswer(try root(xml)) else { Issue.record("no credentials"); return }
        #expect(credentials.userID == "reader-7" && credentials.password == "p@ss")
        #expect(credentials.headers[HTTPField.Name("X-Edge-Token")!] == "edge-1")
        #expect(credentials.headers[.cookie] == "cdn=abc")
    }

    @Test func credentialRefusalsAndBrokenCredentials() throws {
        #expect(PugpigCredentialsAnswer(try root(#"<credentials><error status="notentitled" message="Not yours"/></credentials>"#))
            == .error(PugpigErrorElement(status: "notentitled", message: "Not yours")))
        #expect(PugpigCredentialsAnswer(try root(#"<credentials><error message="No"/></credentials>"#)) == .error(PugpigErrorElement(status: nil, message: "No")))
        #expect(PugpigCredentialsAnswer(try root(#"<error status="notentitled"/>"#)) == .error(PugpigErrorElement(status: "notentitled", message: nil)))
        #expect(PugpigCredentialsAnswer(try root("<credentials><password>p</password></credentials>")) == nil)  // no user id
        #expect(PugpigCredentialsAnswer(try root(#"<credentials><userid>u</userid><password>p</password><header name="Bad Name">v</header></credentials>"#)) == nil)
        #expect(PugpigCredentialsAnswer(try root("<token>t</token>")) == nil)
    }

    // MARK: hostile documents

    @Test func externalEntitiesAreRefused() {
        let xml = #"<?xml version="1.0"?><!DOCTYPE token [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><token>&xxe;</token>"#
        #expect(throws: PugpigXMLDocument.Refusal.documentTypeDeclaration) { try PugpigXMLDocument.parse(Data(xml.utf8)) }
    }

    @Test func entityExpansionIsRefused() {
        var xml = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">"#
        for level in 1...9 { xml += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level == 1 ? "" : String(level - 1));", count: 10) + "\">" }
        xml += "]><token>&lol9;</token>"
        #expect(throws: PugpigXMLDocument.Refusal.documentTypeDeclaration) { try PugpigXMLDocument.parse(Data(xml.utf8)) }
    }

    /// Found by `scripts/fuzz pugpig-xml`: FoundationXML traps on an element name that is not
    /// valid UTF-8; such a document is refused before parsing.
    @Test func invalidUTF8IsRefusedBeforeParsing() {
        let xml = Data("<cr".utf8) + Data([0xFD]) + Data("als><userid>u</userid></credentials>".utf8)
        #expect(throws: PugpigXMLDocument.Refusal.malformed("not UTF-8")) { try PugpigXMLDocument.parse(xml) }
    }

    /// Found by `scripts/fuzz pugpig-xml`: FoundationXML crashes (strlen of NULL) on a processing
    /// instruction without data; processing instructions are refused before parsing.
    @Test func processingInstructionsAreRefusedBeforeParsing() throws {
        #expect(throws: PugpigXMLDocument.Refusal.malformed("a processing instruction")) { try PugpigXMLDocument.parse(Data("<token>abc<?px?></token>".utf8)) }
        #expect(try PugpigXMLDocument.parse(Data(#"<?xml version="1.0" encoding="UTF-8"?><token>abc</token>"#.utf8)).name == "token")
    }

    @Test func aDeclarationHiddenInUTF16IsRefused() {
        let xml = #"<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><token>&x;</token>"#
        let utf16 = Data([0xFF, 0xFE]) + xml.data(using: .utf16LittleEndian)!
        #expect(throws: PugpigXMLDocument.Refusal.self) { try PugpigXMLDocument.parse(utf16) }
    }

    @Test func deepHugeAndCrowdedDocumentsAreRefused() {
        let deep = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
        #expect(throws: PugpigXMLDocument.Refusal.tooDeep) { try PugpigXMLDocument.parse(Data(deep.utf8)) }
        let huge = "<token>" + String(repeating: "x", count: PugpigXMLDocument.maximumSize) + "</token>"
        #expect(throws: PugpigXMLDocument.Refusal.tooLarge) { try PugpigXMLDocument.parse(Data(huge.utf8)) }
        let crowded = "<issues>" + String(repeating: "<i/>", count: PugpigXMLDocument.maximumElements) + "</issues>"
        #expect(throws: PugpigXMLDocument.Refusal.tooManyElements) { try PugpigXMLDocument.parse(Data(crowded.utf8)) }
    }

    @Test func malformedDocumentsAreRefused() {
        for text in ["", "not xml", "<token>unclosed", "<a></b>", "<html><body>Bad gateway</body>"] {
            #expect(throws: PugpigXMLDocument.Refusal.self, "\(text)") { try PugpigXMLDocument.parse(Data(text.utf8)) }
        }
    }

    @Test func aLongIssueListIsFine() throws {
        let xml = #"<subscription state="active"><issues>"# + (0..<5_000).map { "<issue>issue-\($0)</issue>" }.joined() + "</issues></subscription>"
        guard case .subscription(_, _, _, let issues)? = PugpigSubscriptionAnswer(try root(xml)) else { Issue.record("no subscription"); return }
        #expect(issues?.count == 5_000)
    }
}
