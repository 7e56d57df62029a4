/// Why a socket was closed as soon as it was accepted.
enum SocketRefusal: Sendable, Equatable {
    /// The hub had as many sockets open as its descriptor budget allows.
    case descriptorBudget
    /// ``HubHTTPAPILimits/maxHTTPConnections`` sockets had not become WebSockets.
    case httpConnections
    /// The address had ``HubConnectionLimits/maxConnectionsPerIP`` sockets open.
    case address

    /// The counter it adds to.
    var counter: HubCounter {
        switch self {
        case .descriptorBudget: .socketsRefusedAtDescriptorBudget
        case .httpConnections: .socketsRefusedAtHTTPLimit
        case .address: .socketsRefusedAtAddressLimit
        }
    }

    /// A short reason for logs.
    var reason: String {
        switch self {
        case .descriptorBudget: "descriptor budget"
        case .httpConnections: "maxHTTPConnections"
        case .address: "maxConnectionsPerIP"
        }
    }
}
