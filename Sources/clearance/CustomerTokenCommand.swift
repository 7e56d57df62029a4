import ArgumentParser
import ClearanceServer
import ClearanceWire
import Foundation

/// `clearance customer-token mint|verify`: Bloomreach customer tokens (HS256 JWTs, `kid` = the
/// private API key id, `sub` = the customer ids) as an app's backend mints and checks them.
struct CustomerTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "customer-token",
        abstract: "Mint or verify Bloomreach customer tokens (HS256 JWTs).",
        discussion: """
            The private API key's secret is read from standard input (--secret-stdin; one trailing \
            newline is dropped) and must be at least 32 bytes. Exit status: 0 on success; 1 with the \
            qualified code on standard error when a token is refused or cannot be minted; 64 for bad usage.
            """,
        subcommands: [Mint.self, Verify.self]
    )

    struct Mint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a customer token (the JWT alone, on one line).")
        @Option(help: "The private API key id (the token header's kid).") var kid: String
        @Option(help: "Seconds until the token expires (1 to \(Int(CustomerTokenMinter.maximumTTL))).") var ttl: Int
        @Option(name: .customLong("customer-id"), help: "A customer id as NAME=VALUE (e.g. registered=jane@example.com); repeat for more.")
        var customerIDs: [String] = []
        @Flag(help: "Read the secret from standard input.") var secretStdin = false

        func validate() throws {
            guard ttl >= 1, TimeInterval(ttl) <= CustomerTokenMinter.maximumTTL else {
                throw ValidationError("--ttl must be between 1 and \(Int(CustomerTokenMinter.maximumTTL)) seconds.")
            }
            _ = try CustomerTokenCommand.parse(customerIDs)
        }

        func run() async throws {
            let key = try CustomerTokenCommand.key(id: kid, secretStdin: secretStdin)
            let minter = await CustomerTokenMinter(key: key)
            do {
                print(try await minter.mint(customerIDs: try CustomerTokenCommand.parse(customerIDs), ttl: TimeInterval(ttl)))
            } catch let error as CustomerTokenError {
                CommandFailure.exit(error)
            }
        }
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a customer token and print its customer ids as JSON (exit 0 only when valid).")
        @Option(help: "The private API key id the token must name (kid).") var kid: String
        @Flag(help: "Read the secret from standard input.") var secretStdin = false
        @Option(help: "The JWT.") var token: String
        @Option(help: "Clock leeway for exp and nbf, 0 to 60 seconds.") var leeway: Int = 30

        func validate() throws {
            guard leeway >= 0, TimeInterval(leeway) <= CustomerTokenVerifier.maximumLeeway else {
                throw ValidationError("--leeway must be between 0 and \(Int(CustomerTokenVerifier.maximumLeeway)) seconds.")
            }
        }

        func run() async throws {
            let key = try CustomerTokenCommand.key(id: kid, secretStdin: secretStdin)
            do throws(CustomerTokenError) {
                let verifier = try await CustomerTokenVerifier(keys: [key], leeway: TimeInterval(leeway))
                let verified = try await verifier.verify(token)
                print(JSONValue.object(verified.customerIDs.mapValues { .string($0) }).jsonText)
            } catch {
                CommandFailure.exit(error)
            }
        }
    }

    /// `NAME=VALUE` pairs as customer ids; a usage error for anything else.
    static func parse(_ pairs: [String]) throws -> [String: String] {
        guard !pairs.isEmpty else { throw ValidationError("Give at least one --customer-id NAME=VALUE.") }
        var ids: [String: String] = [:]
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ValidationError("--customer-id '\(pair)' is not NAME=VALUE.")
            }
            guard ids.updateValue(String(parts[1]), forKey: String(parts[0])) == nil else {
                throw ValidationError("--customer-id names '\(parts[0])' twice.")
            }
        }
        return ids
    }

    /// The key from `--kid` and the secret on standard input.
    static func key(id: String, secretStdin: Bool) throws -> CustomerTokenKey {
        guard secretStdin else { throw ValidationError("The secret is read from standard input: add --secret-stdin.") }
        // The secret's bytes are released before the command may exit with a refusal: no copy of
        // it outlives its use (and none is alive when the process ends).
        let made: Result<CustomerTokenKey, CustomerTokenError>
        do {
            let secret = SecretInput.trimmingNewline(FileHandle.standardInput.readDataToEndOfFile())
            guard !secret.isEmpty else { throw ValidationError("No secret on standard input.") }
            made = Result { () throws(CustomerTokenError) in try CustomerTokenKey(id: id, secret: secret) }
        }
        switch made {
        case .success(let key): return key
        case .failure(let error): CommandFailure.exit(error)
        }
    }
}
