@testable import ClearanceOAuth2
import ClearanceWire
import Foundation
import Testing

/// The small value types, on their own: refresh window, backoff, device poll schedule, the
/// session's decision, form encoding, PKCE.
@Suite struct ValueTypeTests {
    @Test func refreshWindowAllowsFiveAttemptsInThirtySecondsThenRecovers() {
        var window = RefreshWindow()
        let start: Duration = .seconds(100)
        for second in 0..<5 {
            let now = start + .seconds(second)
            #expect(window.retryAfter(now: now) == nil)
            window.recordAttempt(at: now)
        }
        // The sixth attempt within the window is refused until the first attempt leaves it.
        #expect(window.retryAfter(now: start + .seconds(5)) == .seconds(25))
        #expect(window.retryAfter(now: start + .seconds(29)) == .seconds(1))
        #expect(window.recentAttempts(now: start + .seconds(29)) == 5)
        #expect(window.retryAfter(now: start + .seconds(30)) == nil)
        window.recordAttempt(at: start + .seconds(30))
        #expect(window.recentAttempts(now: start + .seconds(30)) == 5)
        #expect(window.retryAfter(now: start + .seconds(30)) == .seconds(1))
        window.reset()
        #expect(window.retryAfter(now: start + .seconds(30)) == nil)
    }

    @Test func refreshBackoffDoublesUpToItsMaximumAndHonoursRetryAfter() {
        var backoff = RefreshBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(8))
        let now: Duration = .seconds(50)
        #expect(backoff.remaining(now: now) == nil)
        #expect(backoff.recordFailure(at: now) == .seconds(1))
        #expect(backoff.recordFailure(at: now) == .seconds(2))
        #expect(backoff.recordFailure(at: now) == .seconds(4))
        #expect(backoff.recordFailure(at: now) == .seconds(8))
        #expect(backoff.recordFailure(at: now) == .seconds(8))
        #expect(backoff.remaining(now: now + .seconds(3)) == .seconds(5))
        #expect(backoff.recordFailure(at: now, serverRetryAfter: .seconds(20)) == .seconds(20))
        backoff.recordSuccess()
        #expect(backoff.remaining(now: now) == nil)
        #expect(backoff.recordFailure(at: now) == .seconds(1))
        var none = RefreshBackoff.none
        none.recordFailure(at: now)
        #expect(none.remaining(now: now) == nil)
    }

    @Test func devicePollScheduleAddsFiveSecondsOnSlowDownForEveryLaterPoll() {
        var schedule = DevicePollSchedule(interval: .seconds(5), issuedAt: .seconds(0), expiresIn: .seconds(60))
        #expect(schedule.nextDelay(now: .seconds(0)) == .seconds(5))
        schedule.slowDown()
        #expect(schedule.nextDelay(now: .seconds(5)) == .seconds(10))
        #expect(schedule.nextDelay(now: .seconds(15)) == .seconds(10))
        schedule.slowDown()
        #expect(schedule.nextDelay(now: .seconds(25)) == .seconds(15))
        // A poll that would land on or after the expiry is not scheduled.
        #expect(schedule.nextDelay(now: .seconds(45)) == nil)
        schedule.backOff()
        #expect(schedule.interval == .seconds(30))
    }

    @Test func sessionCoreDecidesUseRenewOrFail() {
        var core = SessionCore(window: RefreshWindow(), backoff: RefreshBackoff())
        let leeway: Duration = .seconds(30)
        if case .fail(let error, false) = core.next(now: .seconds(0), leeway: leeway, canSignIn: false) {
            #expect(error.code == .notSignedIn)
        } else { Issue.record("no session and no automatic sign-in must fail") }
        guard case .renew(.signIn) = core.next(now: .seconds(0), leeway: leeway, canSignIn: true) else {
            Issue.record("automatic sign-in expected"); return
        }
        let token = OAuth2Token(accessToken: "a", refreshToken: "r", expiresAt: nil, obtainedAt: Date())
        core.active = .init(token: token, expiresAtUptime: .seconds(100))
        guard case .use = core.next(now: .seconds(60), leeway: leeway, canSignIn: false) else { Issue.record("fresh token"); return }
        guard case .renew(.refresh) = core.next(now: .seconds(75), leeway: leeway, canSignIn: false) else { Issue.record("within leeway"); return }
        // Within the leeway but held back by the window: keep using the still-valid token.
        for second in 1...5 { core.window.recordAttempt(at: .seconds(70 + second)) }
        guard case .use = core.next(now: .seconds(75), leeway: leeway, canSignIn: false) else { Issue.record("held back, still valid"); return }
        // Expired and held back: renew (the renewal reports the window).
        guard case .renew = core.next(now: .seconds(100), leeway: leeway, canSignIn: false) else { Issue.record("expired"); return }
        #expect(core.gate(now: .seconds(100))?.code == .refreshLimitReached)
        // Expired without a refresh token or automatic sign-in: the session ends.
        core.active = .init(token: OAuth2Token(accessToken: "a", obtainedAt: Date()), expiresAtUptime: .seconds(100))
        guard case .fail(let error, true) = core.next(now: .seconds(100), leeway: leeway, canSignIn: false) else { Issue.record("unrenewable"); return }
        #expect(error.code == .tokenExpired)
        // Refused by the server: renew even before expiry.
        core.active = .init(token: token, expiresAtUptime: nil, rejected: true)
        core.window.reset()
        guard case .renew(.refresh) = core.next(now: .seconds(0), leeway: leeway, canSignIn: false) else { Issue.record("rejected"); return }
    }

    @Test func formEncodingFollowsTheURLStandard() {
        #expect(PercentEncoding.formEncode("a-b_c.d*e~f g") == "a-b_c.d*e%7Ef+g")
        #expect(FormFields.encode([("grant_type", "password"), ("username", "jane@example.com")]) == "grant_type=password&username=jane%40example.com")
        let decoded = FormFields(parsing: "a=1+2&b=%2B%26&c&d=").fields
        #expect(decoded.map(\.name) == ["a", "b", "c", "d"])
        #expect(decoded.map(\.value) == ["1 2", "+&", "", ""])
        let tricky = "z/tZ9:X+ =£€"
        #expect(FormFields(parsing: "x=" + PercentEncoding.formEncode(tricky)).first("x") == tricky)
    }

    @Test func pkceVerifiersAreValidAndNeverShown() throws {
        let pair = PKCE()
        #expect(PKCE.isValidVerifier(pair.verifier))
        #expect(pair.verifier.count == 43)
        #expect(PKCE.challenge(for: pair.verifier) == pair.challenge)
        #expect(!"\(pair)".contains(pair.verifier))
        #expect(!String(reflecting: pair).contains(pair.verifier))
        #expect(throws: OAuth2Error.self) { try PKCE(verifier: "short") }
        #expect(throws: OAuth2Error.self) { try PKCE(verifier: String(repeating: "a", count: 42) + "!") }
        #expect(PKCE.isValidVerifier(String(repeating: "~", count: 128)))
        #expect(!PKCE.isValidVerifier(String(repeating: "a", count: 129)))
    }

    @Test func tokenAndClientDescriptionsShowNoSecret() {
        let token = OAuth2Token(accessToken: "access-SECRET-1", refreshToken: "refresh-SECRET-2", expiresAt: Date(), obtainedAt: Date())
        let client = OAuth2Client(id: "id", secret: "client-SECRET-3")
        let password = PasswordGrant(username: "jane", password: "password-SECRET-4")
        let app = ExtensionGrant.podioApp(appID: "1", appToken: "app-SECRET-5")
        let grant = AuthorizationCodeGrant(code: "code-SECRET-6", redirectURI: URL(string: "http://127.0.0.1/cb")!, codeVerifier: "verifier-SECRET-7")
        let stored = StoredSession(token: token, client: client)
        for text in ["\(token)", String(reflecting: token), "\(client)", String(reflecting: client), "\(password)", "\(app)", "\(grant)", "\(stored)", "\(token.info)"] {
            #expect(!text.contains("SECRET"), "\(text)")
        }
    }
}
