import Clearance
@testable import ClearanceChannels
import ClearanceTestSupport
import Testing

/// Durations, sizes and factors beyond any sane bound are configuration errors that say which
/// member is wrong, never a trap in the middle of a reconnect.
@Suite struct OptionBoundsTests {
    @Test func hugeReconnectValuesAreReportedAndNeverTrap() {
        let huge = Duration.seconds(Int64.max)
        let policies: [(ReconnectPolicy, String)] = [
            (ReconnectPolicy(multiplier: 1e300), "multiplier"),
            (ReconnectPolicy(multiplier: .infinity), "multiplier"),
            (ReconnectPolicy(initialDelay: huge), "initialDelay"),
            (ReconnectPolicy(maximumDelay: huge), "maximumDelay"),
            (ReconnectPolicy(initialDelay: huge, maximumDelay: huge, multiplier: 1e300), "initialDelay"),
            (ReconnectPolicy(restartRetryInterval: huge), "restartRetryInterval"),
            (ReconnectPolicy(stableConnectionDuration: huge), "stableConnectionDuration"),
            (ReconnectPolicy(minimumServerBackoff: huge), "minimumServerBackoff"),
            (ReconnectPolicy(restartRetryAttempts: Int.max), "restartRetryAttempts"),
        ]
        var generator = SeededGenerator(seed: 12)
        for (policy, member) in policies {
            #expect(policy.firstInvalidMember()?.contains(member) == true, "\(member)")
            // Even unvalidated, the arithmetic saturates instead of trapping.
            for attempt in [1, 2, 60, Int.max] {
                for cause in [DisconnectCause.timedOut("t"), .closed(code: 4100, reason: ""), .closed(code: 4200, reason: "")] {
                    for restart in [nil, 1, 2] as [Int?] {
                        guard case .retry(let delay) = policy.decision(after: cause, attempt: attempt, restartAttempt: restart, using: &generator) else { continue }
                        #expect(delay >= .zero && delay <= ReconnectPolicy.longestDuration)
                    }
                }
            }
        }
        #expect(ReconnectPolicy.standard.firstInvalidMember() == nil)
        #expect(ReconnectPolicy(maximumDelay: .seconds(86_400)).firstInvalidMember() == nil)
    }

    @Test func hugeAuthorizationRetryValuesAreReportedAndNeverTrap() {
        let policy = AuthorizationRetryPolicy(maximumAttempts: 1_000_000, initialDelay: .seconds(Int64.max), multiplier: Int.max)
        #expect(policy.firstInvalidMember()?.contains("maximumAttempts") == true)
        #expect(AuthorizationRetryPolicy(initialDelay: .seconds(Int64.max)).firstInvalidMember()?.contains("initialDelay") == true)
        #expect(AuthorizationRetryPolicy(multiplier: 1_000).firstInvalidMember()?.contains("multiplier") == true)
        #expect(policy.delay(after: 500) == ReconnectPolicy.longestDuration)
        #expect(AuthorizationRetryPolicy(initialDelay: .seconds(1), multiplier: 3).delay(after: 200) == ReconnectPolicy.longestDuration)
        #expect(AuthorizationRetryPolicy().delay(after: 2) == .seconds(1))
        #expect(AuthorizationRetryPolicy().firstInvalidMember() == nil)
    }

    @Test func optionsOutOfBoundsFailTheConnectionWithTheirReason() async throws {
        var cases: [(ChannelClientOptions, String)] = []
        func options(_ change: (inout ChannelClientOptions) -> Void) -> ChannelClientOptions {
            var options = TestHub.options(9)
            change(&options)
            return options
        }
        cases.append((options { $0.connectTimeout = .seconds(Int64.max) }, "connectTimeout"))
        cases.append((options { $0.activityTimeout = .zero }, "activityTimeout"))
        cases.append((options { $0.pongTimeout = .seconds(-1) }, "pongTimeout"))
        cases.append((options { $0.authorizationTimeout = .seconds(Int64.max) }, "authorizationTimeout"))
        cases.append((options { $0.closeTimeout = .seconds(100_000) }, "closeTimeout"))
        cases.append((options { $0.maximumMessageSize = Int.max }, "maximumMessageSize"))
        cases.append((options { $0.reconnectPolicy = ReconnectPolicy(multiplier: 1e300) }, "reconnectPolicy.multiplier"))
        cases.append((options { $0.authorizationRetry = AuthorizationRetryPolicy(maximumAttempts: 1_000) }, "authorizationRetry.maximumAttempts"))
        for (options, member) in cases {
            #expect(throws: ChannelClientError.self) { try options.validate() }
            let client = ChannelClient(key: "test-key", options: options)
            await client.connect()
            guard case .failed(let error) = await client.state else {
                Issue.record("\(member): not failed")
                continue
            }
            #expect(error.code == .invalidOptions)
            #expect(error.message.contains(member), "\(error.message)")
        }
        try TestHub.options(9).validate()
    }
}
