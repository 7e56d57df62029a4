@testable import ClearanceServer
import Testing

@Suite("ConnectionRequest")
struct ConnectionRequestTests {
    @Test(arguments: [5, 6, 7])
    func acceptsProtocols5To7(_ version: Int) throws {
        let request = try ConnectionRequest(path: "/app/my-key?protocol=\(version)&client=js&version=8.4.0")
        #expect(request == ConnectionRequest(appKey: "my-key", protocolVersion: version))
    }

    @Test(arguments: [
        ("/", HubCloseCode.pathNotFound),
        ("/apps/key?protocol=7", .pathNotFound),
        ("/app/?protocol=7", .pathNotFound),
        ("/app/key/extra?protocol=7", .pathNotFound),
        ("/app/key", .noProtocolVersion),
        ("/app/key?client=js", .noProtocolVersion),
        ("/app/key?protocol=seven", .invalidVersionFormat),
        ("/app/key?protocol=", .invalidVersionFormat),
        ("/app/key?protocol=7.0", .invalidVersionFormat),
        ("/app/key?protocol=4", .unsupportedProtocolVersion),
        ("/app/key?protocol=8", .unsupportedProtocolVersion),
    ])
    func refusesWithTheRightCode(_ path: String, _ code: HubCloseCode) {
        #expect(throws: code) { try ConnectionRequest(path: path) }
    }

    @Test func toleratesATrailingSlash() throws {
        #expect(try ConnectionRequest(path: "/app/key/?protocol=7").appKey == "key")
    }
}

extension ConnectionRequest {
    init(appKey: String, protocolVersion: Int) {
        try! self.init(path: "/app/\(appKey)?protocol=\(protocolVersion)")
    }
}
