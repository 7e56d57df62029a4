import Clearance

/// Why a reload (``HubReloader/reload(_:)``) was refused. The hub then keeps running on the
/// configuration it had, unchanged.
public enum HubReloadError: ClearanceError {
    /// No hub runs with this reloader (not started yet, or stopped).
    case notRunning
    /// The new configuration is not usable.
    case configuration(HubConfigurationError)
    /// The new certificate or key is not usable.
    case certificate(HubTLSError)

    public static let codeDomain = "hub.reload"

    /// The configuration's or the certificate's error.
    public var underlying: (any Error)? {
        switch self {
        case .notRunning: nil
        case let .configuration(error): error
        case let .certificate(error): error
        }
    }

    /// Each case's code and message (which never contains a secret).
    public var summary: ErrorSummary<Code> {
        switch self {
        case .notRunning: .init(.notRunning, "No hub is running with this reloader.")
        case let .configuration(error): .init(.configuration, "The new configuration is refused, the hub keeps the last good one: \(error.message)")
        case let .certificate(error): .init(.certificate, "The new certificate is refused, the hub keeps the last good configuration: \(error.message)")
        }
    }

    /// Stable machine-readable codes; ``qualifiedCode`` is `hub.reload.<code>`.
    public enum Code: String, Sendable, CaseIterable {
        case notRunning, configuration, certificate
    }
}
