import Clearance
import ClearanceBloomreach
import ClearanceTestSupport
import Foundation

/// The app's customer-token provider, scripted: records every call, answers with `answer`
/// (by customer and call number), and can hold calls mid-fetch until the test releases them,
/// which makes races with a customer switch deterministic.
final class TestProvider: Sendable {
    private struct State {
        var calls: [CustomerIDs] = []
        var holding = false
        var held: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())
    private let answer: @Sendable (CustomerIDs, Int) throws -> String?

    /// - Parameter answer: The token for a customer at a call number (0-based); a throw makes the call fail.
    init(_ answer: @escaping @Sendable (CustomerIDs, Int) throws -> String? = { customer, call in TestProvider.jwt(for: customer, call: call, exp: nil) }) {
        self.answer = answer
    }

    /// The customers asked for, in order.
    var calls: [CustomerIDs] { state.withLock { $0.calls } }

    /// Calls from now on wait for ``release(_:)``.
    func hold() { state.withLock { $0.holding = true } }

    /// Lets call number `call` answer.
    func release(_ call: Int) {
        state.withLock { $0.held.removeValue(forKey: call) }?.resume()
    }

    /// Waits until call number `call` (0-based) is parked, waiting for ``release(_:)``.
    func waitUntilHeld(_ call: Int) async throws {
        try await eventually("provider call \(call) held") { state.withLock { $0.held[call] != nil } }
    }

    /// The provider as a source takes it.
    var provider: CustomerTokenSource.Provider {
        { [self] customer in
            let (call, holding) = state.withLock { s -> (Int, Bool) in
                s.calls.append(customer)
                return (s.calls.count - 1, s.holding)
            }
            if holding {
                await withCheckedContinuation { continuation in state.withLock { $0.held[call] = continuation } }
            }
            return try answer(customer, call)
        }
    }

    /// A JWT-shaped token for `customer` (not signed: the client never verifies): the payload
    /// holds `sub`, the call number and `exp` (seconds after ``TestClock/start``) when given.
    static func jwt(for customer: CustomerIDs, call: Int, exp: TimeInterval?) -> String {
        var payload: [String: Any] = ["sub": customer.values, "call": call]
        if let exp { payload["exp"] = Int(TestClock.start.timeIntervalSince1970 + exp) }
        let header = #"{"alg":"HS256","typ":"JWT","kid":"test"}"#
        let body = String(decoding: (try? JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
        return [header, body].map(segment).joined(separator: ".") + ".c2lnbmF0dXJl"
    }

    static func segment(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
