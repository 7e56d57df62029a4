/// The App Store environment a signed transaction comes from (its `environment` field).
public enum AppStoreEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    /// The App Store.
    case production = "Production"
    /// The sandbox (TestFlight, sandbox accounts).
    case sandbox = "Sandbox"
    /// StoreKit testing in Xcode.
    case xcode = "Xcode"
    /// Local StoreKit testing.
    case localTesting = "LocalTesting"
}
