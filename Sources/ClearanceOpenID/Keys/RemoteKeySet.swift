import Clearance
import ClearanceWire
import Foundation
import Logging

/// A provider's key set, cached and fetched again when it must be (OpenID Connect Core §10.1.1,
/// go-oidc's `RemoteKeySet`):
///
/// - the first use fetches it; a set older than ``maximumAge`` (24 h) is fetched again before
///   use (if that fails, the cached set is still used);
/// - a token whose key is not in the set causes **one** refetch, and such refetches happen at
///   most once per ``unknownKeyRefetchInterval`` (a minute): the first fetch and the 24 h
///   refresh do not count;
/// - every fetch goes through one `SingleFlight`: verifications that need the set at the same
///   time share one request.
final class RemoteKeySet: Sendable {
    /// How old a cached set may be before it is fetched again.
    static let maximumAge: TimeInterval = 24 * 3_600
    /// The shortest time between two refetches caused by unknown keys.
    static let unknownKeyRefetchInterval: TimeInterval = 60

    /// A set and the generation it belongs to (each fetch makes a new generation).
    struct Snapshot: Sendable {
        let keys: KeySetDocument
        let generation: UInt64
    }

    private struct State {
        var keys: KeySetDocument?
        var fetchedAt: Date?
        var generation: UInt64 = 0
        var unknownKeyRefetchAt: Date?
        /// A refetch for an unknown key was decided and has not ended: callers that meet an
        /// unknown key meanwhile share it (its flight may not have started yet).
        var unknownKeyRefetchPending = false
    }

    /// Fetches and reads the set (from the provider's `jwks_uri`).
    typealias Fetch = @Sendable () async throws(OpenIDError) -> KeySetDocument

    private let state = Locked(State())
    private let flight = SingleFlight<Snapshot>()
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// The set to verify with at `now`: the cached one while it is younger than a day, else a
    /// fresh one (the cached one when the fetch fails).
    func current(now: Date, fetch: @escaping Fetch) async throws(OpenIDError) -> Snapshot {
        let cached = state.withLock { state -> (Snapshot?, Bool) in
            guard let keys = state.keys, let fetchedAt = state.fetchedAt else { return (nil, true) }
            let snapshot = Snapshot(keys: keys, generation: state.generation)
            return (snapshot, now.timeIntervalSince(fetchedAt) >= Self.maximumAge || fetchedAt > now.addingTimeInterval(Self.maximumAge))
        }
        guard cached.1 else { return cached.0! }
        do {
            return try await refetch(unlessNewerThan: cached.0?.generation ?? 0, now: now, fetch: fetch)
        } catch {
            guard let stale = cached.0 else { throw error }
            logger.warning("the provider's key set could not be fetched again; using the cached one", metadata: ["code": "\(error.qualifiedCode)"])
            return stale
        }
    }

    /// A set fetched again because a token named a key that `seen` lacks; nil when a refetch is
    /// not allowed yet (one a minute). A set newer than `seen` is returned without fetching.
    func refetchForUnknownKey(seen: Snapshot, now: Date, fetch: @escaping Fetch) async throws(OpenIDError) -> Snapshot? {
        enum Decision { case use(Snapshot), join, share, fetch(previous: Date?), refuse }
        let decision = state.withLock { state -> Decision in
            if state.generation > seen.generation, let keys = state.keys { return .use(Snapshot(keys: keys, generation: state.generation)) }
            // Decided by another caller, whose flight may not have begun: the same refetch (it
            // runs once through the flight, whoever starts it; a set newer than `seen` ends it).
            if state.unknownKeyRefetchPending { return .share }
            if flight.isRunning { return .join }
            if let last = state.unknownKeyRefetchAt, abs(now.timeIntervalSince(last)) < Self.unknownKeyRefetchInterval { return .refuse }
            let previous = state.unknownKeyRefetchAt
            state.unknownKeyRefetchAt = now
            state.unknownKeyRefetchPending = true
            return .fetch(previous: previous)
        }
        switch decision {
        case .use(let snapshot): return snapshot
        case .refuse:
            logger.debug("unknown key id: the key set was fetched again less than a minute ago; not again yet")
            return nil
        case .join:
            return try await refetch(unlessNewerThan: seen.generation, now: now, mayFetch: .never, fetch: fetch)
        case .share:
            return try await refetch(unlessNewerThan: seen.generation, now: now, mayFetch: .whileUnknownKeyRefetchPending, fetch: fetch)
        case .fetch(let previous):
            logger.debug("unknown key id: fetching the provider's key set again")
            defer { state.withLock { $0.unknownKeyRefetchPending = false } }
            do {
                return try await refetch(unlessNewerThan: seen.generation, now: now, mayFetch: .always, fetch: fetch)
            } catch {
                // A refetch that got no set (the provider stalled, say) does not count: the
                // next token naming an unknown key fetches again.
                state.withLock { state in
                    if state.unknownKeyRefetchAt == now { state.unknownKeyRefetchAt = previous }
                }
                throw error
            }
        }
    }

    /// When a caller's flight may fetch (rather than return the current set).
    private enum FetchRight {
        case always
        /// Only while the refetch another caller decided for an unknown key has not ended.
        case whileUnknownKeyRefetchPending
        /// Never: a caller that only joins a running flight and finds it over.
        case never
    }

    /// Fetches through the one flight; a caller that arrives after a newer set came gets it
    /// without a new request, and one whose `mayFetch` does not allow a fetch gets the current set.
    private func refetch(unlessNewerThan generation: UInt64, now: Date, mayFetch: FetchRight = .always, fetch: @escaping Fetch) async throws(OpenIDError) -> Snapshot {
        do {
            return try await flight.run { [self] () async throws -> Snapshot in
                let (newer, allowed, current) = state.withLock { state in
                    let allowed = switch mayFetch {
                    case .always: true
                    case .whileUnknownKeyRefetchPending: state.unknownKeyRefetchPending
                    case .never: false
                    }
                    return (state.generation > generation, allowed, state.keys.map { Snapshot(keys: $0, generation: state.generation) })
                }
                if let current, newer || !allowed { return current }
                let keys = try await fetch()
                return state.withLock { state in
                    state.keys = keys
                    state.fetchedAt = now
                    state.generation += 1
                    return Snapshot(keys: keys, generation: state.generation)
                }
            }
        } catch let error as OpenIDError {
            throw error
        } catch {
            throw .keySetUnavailable(reason: "the fetch was cancelled", underlying: error)
        }
    }

    // MARK: - Stored with the session

    /// The cached set, when it was fetched, and the last refetch an unknown key caused.
    var stored: (keys: KeySetDocument?, fetchedAt: Date?, unknownKeyRefetchAt: Date?) {
        state.withLock { ($0.keys, $0.fetchedAt, $0.unknownKeyRefetchAt) }
    }

    /// Takes a stored set when it is newer than the cached one (or there is none).
    func adopt(_ keys: KeySetDocument, fetchedAt: Date, unknownKeyRefetchAt: Date?) {
        state.withLock { state in
            if let current = state.fetchedAt, current >= fetchedAt { return }
            state.keys = keys
            state.fetchedAt = fetchedAt
            state.generation += 1
            if let unknownKeyRefetchAt, (state.unknownKeyRefetchAt ?? .distantPast) < unknownKeyRefetchAt {
                state.unknownKeyRefetchAt = unknownKeyRefetchAt
            }
        }
    }
}
