// swift-tools-version: 6.1
import PackageDescription

// Clearance is licensed under the Apache License, Version 2.0: see LICENSE.
//
// The module graph, lowest first (ARCHITECTURE.md draws it); a module imports only modules
// listed before it.
//
//   ClearanceWire                    wire helpers: JSON, forms, percent-encoding (package access, but
//                                    JSONValue, public in APIs; not a product)
//   Clearance                        core: credentials, sources, policy, errors, events, lock
//   ClearanceHTTP                    transports, the authorized client, the OpenAPI middleware
//   ClearanceStore                   secure stores: encrypted file (AES-GCM), Keychain, in memory
//   ClearanceBloomreach              the Bloomreach preset and its identity-aware customer-token source
//   ClearanceOAuth2                  OAuth2 sessions, grants, session stores, loopback redirects
//   ClearanceOpenID                  OpenID Connect: discovery, ID tokens verified (jwt-kit), UserInfo, sign-out
//   ClearanceSecretBox, ClearanceSigning
//   ClearanceChannels                the Pusher protocol 7 client and its channel authorizers
//   ClearanceEntitlements            content entitlements: providers, Pugpig's API, protected downloads
//   ClearanceAppStore                App Store signed transactions (jwt-kit) and StoreKit
//   ClearanceServer                  the production hub, HTTP API and auth endpoints
//   ClearanceServerPostgres          a cluster of hubs: channel state shared through PostgreSQL
//   ClearanceDevelopment             development servers: demo API, OAuth2 provider, users, hosting
//   ClearanceTesting                 helpers for apps testing code that uses Clearance
//   ClearanceFuzzing                 the fuzz targets' entry functions (Fuzz/ClearanceFuzzing)
//   ClearanceDemo, ClearanceBench    what `clearance demo` and `clearance bench` run
//   ClearanceFuzzer                  libFuzzer's driver (scripts/fuzz), else a replayer of inputs
//   clearance                        the command-line tool (commands only)

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Clearance",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "Clearance", targets: ["Clearance"]),
        .library(name: "ClearanceHTTP", targets: ["ClearanceHTTP"]),
        .library(name: "ClearanceStore", targets: ["ClearanceStore"]),
        .library(name: "ClearanceBloomreach", targets: ["ClearanceBloomreach"]),
        .library(name: "ClearanceOAuth2", targets: ["ClearanceOAuth2"]),
        .library(name: "ClearanceOpenID", targets: ["ClearanceOpenID"]),
        .library(name: "ClearanceChannels", targets: ["ClearanceChannels"]),
        .library(name: "ClearanceEntitlements", targets: ["ClearanceEntitlements"]),
        .library(name: "ClearanceAppStore", targets: ["ClearanceAppStore"]),
        .library(name: "ClearanceSigning", targets: ["ClearanceSigning"]),
        .library(name: "ClearanceSecretBox", targets: ["ClearanceSecretBox"]),
        .library(name: "ClearanceServer", targets: ["ClearanceServer"]),
        .library(name: "ClearanceServerPostgres", targets: ["ClearanceServerPostgres"]),
        .library(name: "ClearanceDevelopment", targets: ["ClearanceDevelopment"]),
        .library(name: "ClearanceTesting", targets: ["ClearanceTesting"]),
        .executable(name: "clearance", targets: ["clearance"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // TLS for the hub (HummingbirdTLS's TLSChannel in front of the hub's own child channel).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.2"),
        // `swift package generate-documentation` (scripts/docs); a command plugin: no library depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // TestClock: tests move the transports' deadline clock by hand instead of waiting.
        .package(url: "https://github.com/pointfreeco/swift-clocks.git", from: "1.1.1"),
    ],
    targets: [
        // Wire formats every module speaks, written once, `package` access only: the exact-bytes
        // JSON scanner and writer, percent-encoding and form fields. No dependencies.
        .target(name: "ClearanceWire", swiftSettings: strict),
        // The core model: credentials, sources, policies, errors, events, the lock. No HTTP client, no server.
        .target(
            name: "Clearance",
            dependencies: [
                "ClearanceWire",
                .product(name: "HTTPTypes", package: "swift-http-types"),
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
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Secure stores for any Codable value: an AES-GCM encrypted file written crash-safely, the
        // Keychain, memory. OAuth2 sessions and entitlement snapshots are kept in them.
        .target(
            name: "ClearanceStore",
            dependencies: ["Clearance", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // Bloomreach: the per-endpoint preset and the customer-token source (expiry read from the
        // JWT, dropped on a customer switch, refreshed once on a 401, optionally stored).
        .target(
            name: "ClearanceBloomreach",
            dependencies: [
                "Clearance", "ClearanceStore", "ClearanceWire",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // OAuth2 sessions: grants, refresh, automatic sign-in, secure session storage, the
        // loopback redirect listener (on SwiftNIO, which AsyncHTTPClient already brings).
        .target(
            name: "ClearanceOAuth2",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceStore", "ClearanceWire",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
            ],
            swiftSettings: strict
        ),
        // OpenID Connect on top of the OAuth2 sessions: discovery, the provider's key set, ID tokens
        // verified with jwt-kit's keys (the OAuth2 module stays free of jwt-kit), UserInfo, sign-out.
        .target(
            name: "ClearanceOpenID",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceOAuth2", "ClearanceWire",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // NaCl secretbox (XSalsa20-Poly1305) in Swift, written from the published specification.
        .target(name: "ClearanceSecretBox", dependencies: ["Clearance"], swiftSettings: strict),
        // Pusher channel-auth, REST and webhook signing: no server dependency.
        .target(
            name: "ClearanceSigning",
            dependencies: ["Clearance", "ClearanceWire", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // The Pusher protocol 7 channel client with pluggable channel authorization.
        .target(
            name: "ClearanceChannels",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceSigning", "ClearanceSecretBox", "ClearanceWire",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Content entitlements (the Pugpig job): ordered providers, Pugpig's subscription API,
        // protected downloads, the snapshot kept in a secure store.
        .target(
            name: "ClearanceEntitlements",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceStore", "ClearanceWire",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // App Store signed transactions verified with jwt-kit's X5CVerifier and Apple's chain
        // rules (portable), and the StoreKit provider (Apple platforms only).
        .target(
            name: "ClearanceAppStore",
            dependencies: [
                "Clearance", "ClearanceEntitlements",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strict
        ),
        // The production server half: the Pusher-compatible hub, its HTTP API, auth endpoints,
        // configuration and limits, customer tokens (jwt-kit), webhooks (sent with
        // AsyncHTTPClient, received by a route helper), Prometheus metrics (swift-metrics with the
        // hub's own swift-prometheus registry, never a global bootstrap), on Hummingbird.
        .target(
            name: "ClearanceServer",
            dependencies: [
                "Clearance", "ClearanceSigning", "ClearanceWire",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict
        ),
        // A cluster of hubs: the channel-state adapter that shares state and relays events between
        // hubs through PostgreSQL (LISTEN/NOTIFY, heartbeats in a table). Its own module, so the
        // hub itself does not depend on postgres-nio.
        .target(
            name: "ClearanceServerPostgres",
            dependencies: [
                "Clearance", "ClearanceSigning", "ClearanceServer", "ClearanceWire",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Development servers: the demo API, the development OAuth2 provider, development users
        // behind the hub's auth endpoints, and a helper that runs any router on loopback.
        .target(
            name: "ClearanceDevelopment",
            dependencies: [
                "Clearance", "ClearanceSigning", "ClearanceServer", "ClearanceWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Helpers for testing code that uses Clearance (log capture, counters).
        .target(
            name: "ClearanceTesting",
            dependencies: ["Clearance", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // The fuzz targets' entry functions (Fuzz/README.md): one file per target, shared by the
        // libFuzzer driver below and the corpus replay test.
        .target(
            name: "ClearanceFuzzing",
            dependencies: [
                "Clearance", "ClearanceWire", "ClearanceStore", "ClearanceOAuth2", "ClearanceSigning", "ClearanceChannels",
                "ClearanceEntitlements", "ClearanceAppStore", "ClearanceServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "Fuzz/ClearanceFuzzing",
            swiftSettings: strict
        ),
        // libFuzzer's driver when built by scripts/fuzz (-D CLEARANCE_LIBFUZZER), else a replayer of inputs.
        .executableTarget(
            name: "ClearanceFuzzer",
            dependencies: ["ClearanceFuzzing"],
            path: "Fuzz/ClearanceFuzzer",
            swiftSettings: strict
        ),
        // What `clearance demo` runs: every job against the development servers, step by step.
        .target(
            name: "ClearanceDemo",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceOAuth2", "ClearanceOpenID", "ClearanceChannels", "ClearanceSigning",
                "ClearanceServer", "ClearanceDevelopment", "ClearanceStore", "ClearanceEntitlements", "ClearanceBloomreach", "ClearanceWire",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strict
        ),
        // What `clearance bench` runs: figures against baselines measured in the same run.
        .target(
            name: "ClearanceBench",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceChannels", "ClearanceSigning",
                "ClearanceServer", "ClearanceDevelopment", "ClearanceEntitlements",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Benchmarks/ClearanceBench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "clearance",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceOAuth2", "ClearanceOpenID", "ClearanceChannels", "ClearanceSigning",
                "ClearanceServer", "ClearanceServerPostgres", "ClearanceDevelopment", "ClearanceDemo", "ClearanceBench", "ClearanceWire",
                "ClearanceEntitlements",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),

        // Test support shared by the test targets: fixtures, the Python-peer launcher (and the
        // django-oauth-toolkit server), the hub fixture, the hostile OpenID provider, seeded
        // randomness, the built executable.
        .target(
            name: "ClearanceTestSupport",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceSigning", "ClearanceChannels", "ClearanceServer", "ClearanceDevelopment",
                "ClearanceOAuth2", "ClearanceWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ClearanceTestSupport",
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceWireTests",
            dependencies: ["ClearanceWire"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceTests",
            dependencies: ["Clearance", "ClearanceTesting", "ClearanceTestSupport", .product(name: "HTTPTypes", package: "swift-http-types")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceHTTPTests",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceServer", "ClearanceDevelopment", "ClearanceTesting", "ClearanceTestSupport",
                "ClearanceBloomreach",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceStoreTests",
            dependencies: ["ClearanceStore", "ClearanceTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceBloomreachTests",
            dependencies: [
                "ClearanceBloomreach", "Clearance", "ClearanceHTTP", "ClearanceStore", "ClearanceServer",
                "ClearanceDevelopment", "ClearanceTesting", "ClearanceTestSupport", "clearance",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceOAuth2Tests",
            dependencies: [
                "ClearanceOAuth2", "Clearance", "ClearanceHTTP", "ClearanceWire", "ClearanceServer", "ClearanceDevelopment",
                "ClearanceTesting", "ClearanceTestSupport", "clearance",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceOpenIDTests",
            dependencies: [
                "ClearanceOpenID", "ClearanceOAuth2", "Clearance", "ClearanceHTTP", "ClearanceWire", "ClearanceServer",
                "ClearanceDevelopment", "ClearanceTesting", "ClearanceTestSupport", "clearance",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Clocks", package: "swift-clocks"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceSigningTests",
            dependencies: ["ClearanceSigning", "ClearanceTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceSecretBoxTests",
            dependencies: ["ClearanceSecretBox", "ClearanceTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceEntitlementsTests",
            dependencies: [
                "ClearanceEntitlements", "Clearance", "ClearanceHTTP", "ClearanceStore", "ClearanceServer", "ClearanceDevelopment", "ClearanceWire",
                "ClearanceTesting", "ClearanceTestSupport", "clearance",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceAppStoreTests",
            dependencies: [
                "ClearanceAppStore", "Clearance", "ClearanceEntitlements", "ClearanceTestSupport",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceServerTests",
            dependencies: [
                "ClearanceServer", "ClearanceDevelopment", "ClearanceSigning", "ClearanceWire", "Clearance", "ClearanceChannels",
                "ClearanceTesting", "ClearanceTestSupport", "clearance",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceChannelsTests",
            dependencies: [
                "Clearance", "ClearanceHTTP", "ClearanceSigning", "ClearanceSecretBox", "ClearanceChannels",
                "ClearanceServer", "ClearanceDevelopment", "ClearanceWire", "ClearanceTesting", "ClearanceTestSupport", "clearance",
                "ClearanceOAuth2", "ClearanceOpenID", "ClearanceBloomreach", "ClearanceEntitlements",  // SecretDumpTests
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceFuzzingTests",
            dependencies: ["ClearanceFuzzing", "ClearanceTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClearanceServerPostgresTests",
            dependencies: [
                "ClearanceServerPostgres", "ClearanceServer", "ClearanceDevelopment", "ClearanceSigning", "ClearanceChannels",
                "Clearance", "ClearanceTesting", "ClearanceTestSupport", "clearance",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
    ]
)
