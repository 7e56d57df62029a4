import Clearance
import ClearanceHTTP
import ClearanceStore
import Foundation
import Logging

/// How a ``PugpigEntitlementProvider`` talks to its service and keeps what it learns.
public struct PugpigConfiguration: Sendable {
    /// The service's endpoints.
    public var endpoints: PugpigEndpoints
    /// `GET` with a query string (Pugpig's default) or `POST` with a form body.
    public var method: PugpigRequestMethod
    /// The sign-in field names of ``PugpigEntitlementProvider/signIn(username:password:)``.
    public var usernameField: String
    /// See ``usernameField``.
    public var passwordField: String
    /// Where the token and the snapshot are kept: an `EncryptedFileStore` (see
    /// ``StoredEntitlements/fileStore(at:key:)``), a `KeychainStore`, or memory (the default).
    public var store: any SecureStore<StoredEntitlements>
    /// How long a snapshot is trusted before the service is asked again (default 24 hours).
    public var verificationInterval: TimeInterval
    /// How long the last snapshot serves when the service cannot be reached (default 30 days).
    public var offlineGrace: TimeInterval
    /// How long ``PugpigEntitlementProvider/status()`` (and so ``PugpigEntitlementProvider/access(to:)``)
    /// waits for a due verification before serving the last snapshot offline (default 10 seconds).
    public var verificationTimeout: TimeInterval
    /// The products this provider decides (default: every product). For others it answers
    /// ``EntitlementAccess/notClaimed``, so an ``EntitlementChain`` asks the next provider.
    public var claims: @Sendable (String) -> Bool
    /// The transport (AsyncHTTPClient's shared one by default).
    public var transport: any HTTPTransport
    /// Where tokens and passwords may be sent (HTTPS, or plain HTTP to loopback, by default).
    public var transportSecurity: TransportSecurity
    /// The provider's name in change events and logs.
    public var name: String
    /// Where change notifications are posted; nil posts none.
    public var notificationCenter: NotificationCenter?
    /// The clock (tests move it).
    public var now: @Sendable () -> Date
    /// The logger (never given a secret).
    public var logger: Logger

    /// A configuration with Pugpig's defaults.
    public init(
        endpoints: PugpigEndpoints,
        method: PugpigRequestMethod = .get,
        usernameField: String = "username",
        passwordField: String = "password",
        store: any SecureStore<StoredEntitlements> = InMemoryStore<StoredEntitlements>(),
        verificationInterval: TimeInterval = 24 * 3600,
        offlineGrace: TimeInterval = 30 * 24 * 3600,
        verificationTimeout: TimeInterval = 10,
        claims: @escaping @Sendable (String) -> Bool = { _ in true },
        transport: any HTTPTransport = AsyncHTTPClientHTTPTransport.shared,
        transportSecurity: TransportSecurity = .strict,
        name: String = "pugpig",
        notificationCenter: NotificationCenter? = .default,
        now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = Logger(label: "clearance.entitlements.pugpig")
    ) {
        self.endpoints = endpoints
        self.method = method
        self.usernameField = usernameField
        self.passwordField = passwordField
        self.store = store
        self.verificationInterval = verificationInterval
        self.offlineGrace = offlineGrace
        self.verificationTimeout = verificationTimeout
        self.claims = claims
        self.transport = transport
        self.transportSecurity = transportSecurity
        self.name = name
        self.notificationCenter = notificationCenter
        self.now = now
        self.logger = logger
    }
}
