import Foundation

/// Where a running hub can be reached: its address and the URLs clients and server libraries use.
public struct HubEndpoint: Sendable, Hashable {
    /// The configuration the hub runs with, with the port it actually bound.
    public let configuration: HubConfiguration

    /// The host it listens on.
    public var host: String { configuration.host }

    /// The port it listens on.
    public var port: Int { configuration.port }

    /// `http://host:port` (`https://` with TLS): the HTTP API and any routes mounted beside it.
    public var httpURL: URL { URL(string: "http\(secureSuffix)://\(bracketedHost):\(port)")! }

    /// `ws://host:port` (`wss://` with TLS): the WebSocket endpoint's origin.
    public var webSocketURL: URL { URL(string: "ws\(secureSuffix)://\(bracketedHost):\(port)")! }

    /// `ws://host:port/app/KEY?protocol=7&client=…&version=…` for `key` (default: the first app's;
    /// `ws://host:port/app/` for a hub with no app yet).
    public func webSocketURL(forKey key: String? = nil, protocolVersion: Int = 7) -> URL {
        guard let key = key ?? configuration.apps.first?.key else { return URL(string: "\(webSocketURL.absoluteString)/app/")! }
        let escaped = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? key
        return URL(string: "\(webSocketURL.absoluteString)/app/\(escaped)?protocol=\(protocolVersion)&client=clearance-swift&version=1.0.0")!
    }

    private var secureSuffix: String { configuration.tls == nil ? "" : "s" }

    private var bracketedHost: String { host.contains(":") ? "[\(host)]" : host }
}
