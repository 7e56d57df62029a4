import ClearanceServerPostgres

extension BackplaneClusterKey {
    /// The secret the test clusters share (given to `clearance serve` as `CLEARANCE_CLUSTER_KEY`).
    static let testSecret = "clearance-test-cluster-secret-0123456789"
    /// The key the test clusters share.
    static let test = try! BackplaneClusterKey(secret: testSecret)
}
