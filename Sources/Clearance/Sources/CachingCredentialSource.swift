import Foundation
import Logging

/// Caches the credential of another source until shortly before it expires (golang's
/// `ReuseTokenSource`), and refreshes it through one shared fetch however many callers wait.
///
/// Expiry comes from the credential's ``Credential/expiresAt`` or, when it has none, from
/// `maxAge` counted from when the credential arrived. A credential is renewed `leeway` before
/// it expires. ``refreshCredential(after:)`` only drops the cached credential if it is the one
/// the server refused, so a burst of 401s for the same old token causes one fetch, not one each.
public final class CachingCredentialSource: RefreshableCredentialSource {
    private struct Cached {
        var credential: Credential
        var expiresAt: Date?
    }

    /// The name used in errors, events and logs.
    public let name: String
    private let upstream: any CredentialSource
    private let leeway: TimeInterval
    private let maxAge: TimeInterval?
    private let now: @Sendable () -> Date
    private let events: AuthorizationEvents?
    private let logger: Logger
    private let cached: Locked<Cached?>
    private let flight = SingleFlight<Credential>()
    private let upstreamCalls = Locked(0)

    /// How many callers wait now for the shared fetch (tests wait for them, not for a time).
    package var waitingCallers: Int { flight.waiterCount }

    /// - Parameters:
    ///   - upstream: Where credentials come from.
    ///   - name: The name used in errors, events and logs.
    ///   - initial: A credential to start with (e.g. restored from storage), if any.
    ///   - leeway: How long before expiry a credential is renewed. Default 30 s.
    ///   - maxAge: Lifetime of a credential that carries no expiry; `nil` keeps it until invalidated.
    ///   - events: Where ``AuthorizationEvent``s are posted.
    ///   - logger: Where it logs (never a credential).
    ///   - now: The clock; injectable for tests.
    public init(
        _ upstream: any CredentialSource,
        name: String = "cached",
        initial: Credential? = nil,
        leeway: TimeInterval = 30,
        maxAge: TimeInterval? = nil,
        events: AuthorizationEvents? = nil,
        logger: Logger = Logger(label: "clearance.credentials"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.upstream = upstream
        self.name = name
        self.leeway = leeway
        self.maxAge = maxAge
        self.events = events
        self.logger = logger
        self.now = now
        self.cached = Locked(initial.map { Cached(credential: $0, expiresAt: $0.expiresAt) })
    }

    /// How many times the upstream source has been asked (for tests and benchmarks).
    package var fetchCount: Int { upstreamCalls.withLock { $0 } }

    public func credential() async throws(AuthorizationError) -> Credential {
        if let fresh = freshCredential() { return fresh }
        return try await fetch()
    }

    public func refreshCredential(after rejected: Credential) async throws(AuthorizationError) -> Credential {
        let dropped = cached.withLock { state -> Bool in
            guard state?.credential == rejected else { return false }
            state = nil
            return true
        }
        if dropped {
            logger.debug("credential refused by the server; refreshing", metadata: ["source": "\(name)"])
            events?.post(.invalidated(source: name))
        }
        return try await credential()
    }

    public func invalidate() {
        let had = cached.withLock { state -> Bool in
            defer { state = nil }
            return state != nil
        }
        if had { events?.post(.invalidated(source: name)) }
    }

    private func freshCredential() -> Credential? {
        let current = now()
        return cached.withLock { state -> Credential? in
            guard let state else { return nil }
            if let expiry = state.expiresAt, current.addingTimeInterval(leeway) >= expiry { return nil }
            return state.credential
        }
    }

    private func fetch() async throws(AuthorizationError) -> Credential {
        do {
            return try await flight.run { [self] in
                // A caller that found no fresh credential may arrive just after the flight that
                // stored one finished: it takes that one rather than asking upstream again.
                if let fresh = freshCredential() { return fresh }
                upstreamCalls.withLock { $0 += 1 }
                let received = now()
                let credential: Credential
                do throws(AuthorizationError) {
                    credential = try await upstream.credential().validated(source: name)
                } catch {
                    logger.warning("credential fetch failed", metadata: ["source": "\(name)", "code": "\(error.qualifiedCode)"])
                    events?.post(.failed(source: name, error: error))
                    throw error
                }
                let expiry = credential.expiresAt ?? maxAge.map { received.addingTimeInterval($0) }
                cached.withLock { $0 = Cached(credential: credential, expiresAt: expiry) }
                logger.debug("credential refreshed", metadata: ["source": "\(name)", "kind": "\(credential.kind)"])
                events?.post(.refreshed(source: name, expiresAt: expiry))
                return credential
            }
        } catch {
            throw AuthorizationError(wrapping: error)
        }
    }
}
