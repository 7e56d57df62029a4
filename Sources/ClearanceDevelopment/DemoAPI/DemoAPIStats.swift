/// What the demo API saw: request counts per route and whether credentials arrived. Never the credentials themselves.
public actor DemoAPIStats {
    /// Requests per route name.
    public private(set) var requests: [String: Int] = [:]
    /// For each route name, how many requests carried an `Authorization` header.
    public private(set) var withAuthorization: [String: Int] = [:]
    /// The customer ids of every verified customer token, in the order the requests arrived.
    public private(set) var customers: [[String: String]] = []

    public init() {}

    func record(_ route: String, hadAuthorization: Bool) {
        requests[route, default: 0] += 1
        if hadAuthorization { withAuthorization[route, default: 0] += 1 }
    }

    func record(customer: [String: String]) {
        customers.append(customer)
    }

    /// Requests to `route` so far.
    public func count(_ route: String) -> Int { requests[route] ?? 0 }
    /// Requests to `route` that carried an `Authorization` header.
    public func authorizedCount(_ route: String) -> Int { withAuthorization[route] ?? 0 }
    /// All requests so far.
    public var total: Int { requests.values.reduce(0, +) }
}
