import ClearanceServer
import ClearanceTestSupport
import Foundation
import Testing

/// `clearance customer-token mint|verify` as built, run as users run it.
@Suite("clearance customer-token", .timeLimit(.minutes(2)))
struct CustomerTokenCommandTests {
    static let secret = "bloomreach-private-key-secret-0123456789"

    static func mint(_ arguments: [String], secret: String = secret + "\n") async throws -> ChildProcess.Output {
        try await ClearanceExecutable.run(["customer-token", "mint"] + arguments, input: secret)
    }

    static func verify(_ token: String, kid: String = "key-1", secret: String = secret + "\n") async throws -> ChildProcess.Output {
        try await ClearanceExecutable.run(["customer-token", "verify", "--kid", kid, "--secret-stdin", "--token", token], input: secret)
    }

    @Test func mintPrintsTheJWTAloneAndVerifyPrintsTheCustomerIDs() async throws {
        let minted = try await Self.mint(["--kid", "key-1", "--ttl", "600", "--customer-id", "registered=jane@example.com", "--customer-id", "cookie=c=42", "--secret-stdin"])
        #expect(minted.status == 0, "\(minted.stderr)")
        #expect(minted.stderr.isEmpty)
        let lines = minted.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "\(minted.stdout)")
        let token = String(lines[0])
        #expect(token.split(separator: ".").count == 3 && !minted.stdout.contains(Self.secret))

        // Verified in process, and by the command.
        let verifier = try await CustomerTokenVerifier(keys: [try CustomerTokenKey(id: "key-1", secret: Self.secret)])
        let verified = try await verifier.verify(token)
        #expect(verified.customerIDs == ["registered": "jane@example.com", "cookie": "c=42"])
        #expect(abs(try #require(verified.expiresAt).timeIntervalSinceNow - 600) < 30)

        let checked = try await Self.verify(token)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout == #"{"cookie":"c=42","registered":"jane@example.com"}"# + "\n")
        // A secret given without a trailing newline is the same secret.
        #expect(try await Self.verify(token, secret: Self.secret).status == 0)
    }

    @Test func verifyRefusesWithTheQualifiedCode() async throws {
        let minter = await CustomerTokenMinter(key: try CustomerTokenKey(id: "key-1", secret: Self.secret))
        let good = try await minter.mint(customerIDs: ["registered": "jane@example.com"], ttl: 600)
        let expired = try await minter.mint(customerIDs: ["registered": "jane@example.com"], expiresAt: Date().addingTimeInterval(-300))
        let parts = good.split(separator: ".").map(String.init)
        let unsigned = [TestProvider.segment(#"{"alg":"none","kid":"key-1"}"#), parts[1], ""].joined(separator: ".")
        let cases: [(String, String, String)] = [
            (good, "other-key", "customer_token.unknownKeyID"),
            (expired, "key-1", "customer_token.expired"),
            ([parts[0], parts[1], String(parts[2].reversed())].joined(separator: "."), "key-1", "customer_token.invalidSignature"),
            (unsigned, "key-1", "customer_token.algorithmNone"),
            ("not.a-jwt", "key-1", "customer_token.malformed"),
        ]
        for (token, kid, code) in cases {
            let output = try await Self.verify(token, kid: kid)
            #expect(output.status == 1, "\(code): \(output.stdout) \(output.stderr)")
            #expect(output.stdout.isEmpty && output.stderr.contains(code), "\(output.stderr)")
            #expect(!output.stderr.contains(parts[1]) && !output.stderr.contains(Self.secret))
        }
        let wrongSecret = try await Self.verify(good, secret: Self.secret + "-not")
        #expect(wrongSecret.status == 1 && wrongSecret.stderr.contains("customer_token.invalidSignature"))
    }

    @Test func badInputIsAClearErrorNeverATrap() async throws {
        let base = ["--kid", "key-1", "--ttl", "60", "--customer-id", "registered=jane"]
        let cases: [([String], String, String)] = [
            (base, Self.secret, "add --secret-stdin"),
            (base + ["--secret-stdin"], "\n", "No secret on standard input"),
            (base + ["--secret-stdin"], "", "No secret on standard input"),
            (base + ["--secret-stdin"], "short-secret\n", "customer_token.weakSecret"),
            (["--kid", "key-1", "--ttl", "60", "--customer-id", "registered", "--secret-stdin"], Self.secret, "is not NAME=VALUE"),
            (["--kid", "key-1", "--ttl", "60", "--customer-id", "=jane", "--secret-stdin"], Self.secret, "is not NAME=VALUE"),
            (["--kid", "key-1", "--ttl", "60", "--customer-id", "registered=", "--secret-stdin"], Self.secret, "is not NAME=VALUE"),
            (["--kid", "key-1", "--ttl", "60", "--customer-id", "a=1", "--customer-id", "a=2", "--secret-stdin"], Self.secret, "names 'a' twice"),
            (["--kid", "key-1", "--ttl", "60", "--secret-stdin"], Self.secret, "at least one --customer-id"),
            (["--kid", "key-1", "--ttl", "0", "--customer-id", "a=1", "--secret-stdin"], Self.secret, "--ttl must be between 1 and"),
            (["--kid", "key-1", "--ttl", "-5", "--customer-id", "a=1", "--secret-stdin"], Self.secret, "--ttl"),
            (["--kid", "key-1", "--ttl", "99999999999", "--customer-id", "a=1", "--secret-stdin"], Self.secret, "--ttl must be between 1 and"),
            (["--kid", "key-1", "--ttl", "99999999999999999999999", "--customer-id", "a=1", "--secret-stdin"], Self.secret, "--ttl"),
            (["--kid", "key-1", "--ttl", "soon", "--customer-id", "a=1", "--secret-stdin"], Self.secret, "--ttl"),
            (["--kid", "", "--ttl", "60", "--customer-id", "a=1", "--secret-stdin"], Self.secret, "customer_token.invalidConfiguration"),
        ]
        for (arguments, input, message) in cases {
            let output = try await ClearanceExecutable.run(["customer-token", "mint"] + arguments, input: input)
            #expect(output.status != 0 && output.status < 128, "\(arguments): exit \(output.status)")
            #expect(output.stdout.isEmpty, "\(arguments): \(output.stdout)")
            #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
            #expect(!output.stderr.contains(Self.secret))
        }
        let leeway = try await ClearanceExecutable.run(["customer-token", "verify", "--kid", "k", "--secret-stdin", "--token", "a.b.c", "--leeway", "61"], input: Self.secret)
        #expect(leeway.status == 64 && leeway.stderr.contains("--leeway must be between 0 and 60"))
    }
}
