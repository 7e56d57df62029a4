import Clearance
import ClearanceHTTP
import ClearanceOAuth2
import ClearanceWire
import Foundation
import HTTPTypes
import Logging

/// An OpenID provider as a relying party sees it (go-oidc's `Provider`): its issuer, its
/// discovery document and its key set, cached, fetched again when older than a day, and stored
/// with the session so a relaunched app needs neither to verify a refreshed ID token.
///
/// ```swift
/// let provider = try await OpenIDProvider.discover(issuer: URL(string: "https://id.example.com")!)
/// let verifier = provider.verifier(clientID: "my-app")
/// ```
///
/// - **Discovery** reads `{issuer}/.well-known/openid-configuration`; a document whose `issuer`
///   is not exactly the issuer asked for is refused before anything else of it is used
///   (``OpenIDError/discoveryIssuerMismatch(expected:found:)``), and every endpoint must follow
///   the transport rules (https, or plain http to loopback, unless allowed).
/// - **Keys** come from `jwks_uri`: fetched on first use, again after a day, and again (once,
///   at most once a minute, through one `SingleFlight`) when a token names a key the set lacks.
public final class OpenIDProvider: Sendable {
    /// How old the cached discovery document may be before it is fetched again.
    public static let metadataMaximumAge: TimeInterval = 24 * 3_600

    /// The issuer, as asked for.
    public let issuer: URL
    /// How the provider's documents are fetched.
    public let transport: any HTTPTransport
    /// Where the documents (and, for the session, credentials) may be fetched from.
    public let transportSecurity: TransportSecurity
    /// The clock (document ages, ID token times, the key refetch limit).
    public let clock: any OAuth2Clock
    let logger: Logger
    let keySet: RemoteKeySet

    private struct State {
        var metadata: OpenIDProviderMetadata?
        var fetchedAt: Date?
    }

    private let state = Locked(State())
    private let metadataFlight = SingleFlight<OpenIDProviderMetadata>()

    /// A provider whose documents are fetched when first needed (or taken from a stored session
    /// with ``restore(_:)``): no request is made here.
    ///
    /// - Throws: ``OpenIDError/invalidIssuer(reason:)`` when `issuer` is not an https URL (or
    ///   http to loopback, or allowed by `transportSecurity`) without query or fragment.
    public convenience init(
        issuer: URL,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        transportSecurity: TransportSecurity = .strict,
        clock: any OAuth2Clock = SystemOAuth2Clock(),
        logger: Logger = Logger(label: "clearance.openid")
    ) throws(OpenIDError) {
        guard let components = URLComponents(url: issuer, resolvingAgainstBaseURL: false), components.host?.isEmpty == false,
              components.query == nil, components.fragment == nil
        else {
            throw .invalidIssuer(reason: "'\(OpenIDError.quote(issuer.absoluteString))' is not an absolute URL without query or fragment")
        }
        do {
            try transportSecurity.check(HTTPRequest(method: .get, url: issuer))
        } catch {
            throw .invalidIssuer(reason: error.message)
        }
        self.init(uncheckedIssuer: issuer, transport: transport, transportSecurity: transportSecurity, clock: clock, logger: logger)
    }

    /// Discovers the provider at `issuer`: fetches and checks its discovery document now.
    ///
    /// - Throws: ``OpenIDError/discoveryIssuerMismatch(expected:found:)``,
    ///   ``OpenIDError/invalidDiscoveryDocument(reason:response:)``,
    ///   ``OpenIDError/insecureEndpoint(name:reason:)``, ``OpenIDError/discoveryUnavailable(underlying:)``,
    ///   ``OpenIDError/invalidIssuer(reason:)``.
    public static func discover(
        issuer: URL,
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        transportSecurity: TransportSecurity = .strict,
        clock: any OAuth2Clock = SystemOAuth2Clock(),
        logger: Logger = Logger(label: "clearance.openid")
    ) async throws(OpenIDError) -> OpenIDProvider {
        let provider = try OpenIDProvider(issuer: issuer, transport: transport, transportSecurity: transportSecurity, clock: clock, logger: logger)
        _ = try await provider.metadata()
        return provider
    }

    /// The issuer as ID tokens must name it: the issuer URL's text, exactly.
    public var issuerIdentifier: String { issuer.absoluteString }

    /// The discovery document held now (nil before the first fetch or restore).
    public var cachedMetadata: OpenIDProviderMetadata? { state.withLock { $0.metadata } }

    /// The discovery document: the cached one while younger than a day, else fetched (again).
    /// When fetching again fails for want of an answer, the cached one is still used; a new
    /// document naming another issuer is refused.
    public func metadata() async throws(OpenIDError) -> OpenIDProviderMetadata {
        let now = clock.now
        let cached = state.withLock { state -> (OpenIDProviderMetadata?, Bool) in
            guard let metadata = state.metadata, let fetchedAt = state.fetchedAt else { return (nil, true) }
            let age = now.timeIntervalSince(fetchedAt)
            return (metadata, age >= Self.metadataMaximumAge || age < -Self.metadataMaximumAge)
        }
        if let metadata = cached.0, !cached.1 { return metadata }
        do {
            return try await fetchMetadata(now: now)
        } catch {
            guard let stale = cached.0, !error.isRefusal else { throw error }
            logger.warning("the discovery document could not be fetched again; using the cached one", metadata: ["code": "\(error.qualifiedCode)"])
            return stale
        }
    }

    private func fetchMetadata(now: Date) async throws(OpenIDError) -> OpenIDProviderMetadata {
        do {
            return try await metadataFlight.run { [self] () async throws -> OpenIDProviderMetadata in
                let url = OpenIDProviderMetadata.discoveryURL(forIssuer: issuer)
                let document: ProviderDocument
                do throws(ProviderDocument.Failure) {
                    document = try await ProviderDocument.fetch(url, transport: transport, transportSecurity: transportSecurity)
                } catch {
                    switch error {
                    case .unreachable(let underlying):
                        if let timeout = TransportError.timeout(in: underlying) { throw OpenIDError.timedOut(timeout) }
                        throw OpenIDError.discoveryUnavailable(underlying: underlying)
                    case .unusable(let reason, let response): throw OpenIDError.invalidDiscoveryDocument(reason: reason, response: response)
                    case .insecure(let reason): throw OpenIDError.invalidIssuer(reason: reason)
                    }
                }
                let metadata = try OpenIDProviderMetadata(document: document.members, expectedIssuer: issuerIdentifier, transportSecurity: transportSecurity)
                state.withLock { state in
                    state.metadata = metadata
                    state.fetchedAt = now
                }
                logger.debug("discovery document fetched", metadata: ["issuer": "\(metadata.issuer)"])
                return metadata
            }
        } catch let error as OpenIDError {
            throw error
        } catch {
            throw .discoveryUnavailable(underlying: error)
        }
    }

    /// The key set to verify with now (fetched on first use and when older than a day).
    func keys() async throws(OpenIDError) -> RemoteKeySet.Snapshot {
        try await keySet.current(now: clock.now) { [self] () async throws(OpenIDError) -> KeySetDocument in try await fetchKeySet() }
    }

    /// The key set fetched again for a token naming a key `seen` lacks; nil when that is not
    /// allowed yet (at most once a minute).
    func keysAfterUnknownKey(seen: RemoteKeySet.Snapshot) async throws(OpenIDError) -> RemoteKeySet.Snapshot? {
        try await keySet.refetchForUnknownKey(seen: seen, now: clock.now) { [self] () async throws(OpenIDError) -> KeySetDocument in try await fetchKeySet() }
    }

    private func fetchKeySet() async throws(OpenIDError) -> KeySetDocument {
        let metadata = try await metadata()
        let document: ProviderDocument
        do throws(ProviderDocument.Failure) {
            document = try await ProviderDocument.fetch(metadata.jwksURI, transport: transport, transportSecurity: transportSecurity)
        } catch {
            switch error {
            case .unreachable(let underlying):
                if let timeout = TransportError.timeout(in: underlying) { throw .timedOut(timeout) }
                throw .keySetUnavailable(reason: "the provider could not be reached", underlying: underlying)
            case .unusable(let reason, let response): throw .keySetUnavailable(reason: reason + (response.map { " (HTTP \($0.status))" } ?? ""), underlying: nil)
            case .insecure(let reason): throw .insecureEndpoint(name: "jwks_uri", reason: reason)
            }
        }
        let keys = try KeySetDocument(document: document.members)
        logger.debug("key set fetched", metadata: ["keys": "\(keys.keys.count)"])
        return keys
    }

    /// A provider for the same issuer, transport, rules and clock, with nothing cached: where
    /// one session restores what its store holds without changing what other sessions see.
    func sessionCopy() -> OpenIDProvider {
        OpenIDProvider(uncheckedIssuer: issuer, transport: transport, transportSecurity: transportSecurity, clock: clock, logger: logger)
    }

    private init(uncheckedIssuer issuer: URL, transport: any HTTPTransport, transportSecurity: TransportSecurity, clock: any OAuth2Clock, logger: Logger) {
        self.issuer = issuer
        self.transport = transport
        self.transportSecurity = transportSecurity
        self.clock = clock
        self.logger = logger
        self.keySet = RemoteKeySet(logger: logger)
    }

    // MARK: - Stored with the session

    /// The documents held now, with when they were fetched, as stored in
    /// `SessionIdentity.provider`: under the issuer they came from, so that ``restore(_:)``
    /// takes them back only for the same issuer.
    public var storedState: JSONValue {
        let (metadata, fetchedAt) = state.withLock { ($0.metadata, $0.fetchedAt) }
        let keys = keySet.stored
        var object: [String: JSONValue] = ["issuer": .string(issuerIdentifier)]
        if let metadata, let fetchedAt {
            object["metadata"] = .object(metadata.document)
            object["metadata_fetched_at"] = .number(String(fetchedAt.timeIntervalSince1970))
        }
        if let document = keys.keys, let fetchedAt = keys.fetchedAt {
            object["jwks"] = .object(document.document)
            object["jwks_fetched_at"] = .number(String(fetchedAt.timeIntervalSince1970))
        }
        if let refetch = keys.unknownKeyRefetchAt {
            object["jwks_unknown_key_refetch_at"] = .number(String(refetch.timeIntervalSince1970))
        }
        return .object(object)
    }

    /// Takes back the documents stored with a session (``storedState``), when they are this
    /// issuer's, usable, and newer than what the provider holds. Anything else is ignored: the
    /// documents are then fetched when needed. Documents stored for another issuer (or without
    /// saying for which) are ignored whole: another provider's key set never verifies this
    /// one's tokens, and its refetch time never holds this one's refetch back.
    public func restore(_ stored: JSONValue) {
        guard stored["issuer"]?.stringValue == issuerIdentifier else {
            logger.debug("stored provider documents of another issuer ignored", metadata: ["issuer": "\(issuerIdentifier)"])
            return
        }
        func date(_ name: String) -> Date? {
            stored[name]?.scalarText.flatMap(Double.init).map { Date(timeIntervalSince1970: $0) }
        }
        if let document = stored["metadata"]?.objectValue, let fetchedAt = date("metadata_fetched_at"),
           let metadata = try? OpenIDProviderMetadata(document: document, expectedIssuer: issuerIdentifier, transportSecurity: transportSecurity)
        {
            state.withLock { state in
                if let current = state.fetchedAt, current >= fetchedAt { return }
                state.metadata = metadata
                state.fetchedAt = fetchedAt
            }
        }
        if let document = stored["jwks"]?.objectValue, let fetchedAt = date("jwks_fetched_at"), let keys = try? KeySetDocument(document: document) {
            keySet.adopt(keys, fetchedAt: fetchedAt, unknownKeyRefetchAt: date("jwks_unknown_key_refetch_at"))
        }
    }
}

extension OpenIDProvider: CustomStringConvertible {
    public var description: String { "OpenIDProvider(\(issuerIdentifier))" }
}
