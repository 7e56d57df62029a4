/// The App Store environment a signed transaction comes from (its `environment` field).
public enum AppStoreEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    case xcode = "Xcode"
    case localTesting = "LocalTesting"
}
