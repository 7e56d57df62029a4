// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

// Work being written in parallel, kept out of the build until it lands.
let inProgressServer: [String] = []
let inProgressCommands: [String] = []

let package = Package(
    name: "Clearance",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],  // Synchronization.Mutex
    products: [
        .library(name: "Clearance", targets: ["Clearance"]),
        .library(name: "ClearanceHTTP", targets: ["ClearanceHTTP"]),
        .library(name: "ClearanceOAuth2", targets: ["ClearanceOAuth2"]),
        .library(name: "ClearanceChannels", targets: ["ClearanceChannels"]),
        .library(name: "ClearanceSigning", targets: ["ClearanceSigning"]),
        .library(name: "ClearanceSecretBox", targets: ["ClearanceSecretBox"]),
        .library(name: "ClearanceServer", targets: ["ClearanceServer"]),
        .library(name: "ClearanceTesting", targets: ["ClearanceTesting"]),
        .executable(name: "clearance", targets: ["clearance"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
    ],
    targets: [
        // The core model: credentials, sources, policies, errors, events. No HTTP client, no server.
        .target(
            name: "Clearance",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Transports, the authorized client and the OpenAPI middleware.
        .target(
            name: "ClearanceHTTP",
            dependencies: [
                "Clearance",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // OAuth2 sessions: grants, refresh, automatic sign-in, secure session storage.
        .target(
            name: "ClearanceOAuth2",
            dependencies: [
                "Clearance",
                "ClearanceHTTP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ],
            swiftSettings: strict
        ),
        // The Pusher protocol 7 channel client with pluggable channel authorization.
        .target(
            name: "ClearanceChannels",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceSigning", "ClearanceSecretBox",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Pusher channel-auth, REST and webhook signing: no server dependency.
        .target(
            name: "ClearanceSigning",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // NaCl secretbox (XSalsa20-Poly1305) in Swift, written from the published specification.
        .target(
            name: "ClearanceSecretBox",
            swiftSettings: strict
        ),
        // Servers: the demo API, the Pusher-compatible hub, auth endpoints.
        .target(
            name: "ClearanceServer",
            dependencies: [
                "Clearance",
                "ClearanceSigning",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: inProgressServer,
            swiftSettings: strict
        ),
        // Helpers for testing code that uses Clearance (log capture, counters).
        .target(
            name: "ClearanceTesting",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "clearance",
            dependencies: [
                "Clearance",
                "ClearanceHTTP",
                "ClearanceOAuth2",
                "ClearanceChannels",
                "ClearanceSigning",
                "ClearanceServer",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: inProgressCommands,
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceSigningTests",
            dependencies: ["ClearanceSigning"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceOAuth2Tests",
            dependencies: [
                "ClearanceOAuth2", "Clearance", "ClearanceHTTP", "ClearanceServer", "ClearanceTesting", "clearance",
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceServerTests",
            dependencies: [
                "ClearanceServer", "ClearanceSigning", "ClearanceTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceChannelsTests",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceSigning", "ClearanceSecretBox", "ClearanceChannels",
                "ClearanceServer", "ClearanceTesting", "clearance",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceSecretBoxTests",
            dependencies: ["ClearanceSecretBox"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceTests",
            dependencies: ["Clearance", "ClearanceTesting"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceHTTPTests",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceServer", "ClearanceTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: strict
        ),
    ]
)
