// swift-tools-version: 6.1
import PackageDescription

/// Backplane: one Swift backend for five mobile apps.
///
/// Executables live in `services/<name>/main` and stay thin; everything they run is in library
/// targets (`shared/` for what every process uses, `services/<name>/<Name>Service` for one
/// service's rules) so tests import the same code the processes run.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "Backplane",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "broker", targets: ["broker"]),
        .executable(name: "gateway", targets: ["gateway"]),
        .executable(name: "auth", targets: ["auth"]),
        .executable(name: "orders", targets: ["orders"]),
        .executable(name: "printing", targets: ["printing"]),
        .executable(name: "routing", targets: ["routing"]),
        .executable(name: "notify", targets: ["notify"]),
        .executable(name: "hydration", targets: ["hydration"]),
        .executable(name: "civic", targets: ["civic"]),
        .executable(name: "social", targets: ["social"]),
        .executable(name: "loadgen", targets: ["loadgen"]),
        // What an app team imports: the public API's client, generated from the gateway's document.
        .library(name: "BackplaneClient", targets: ["BackplaneClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.7.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.25.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.0.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
        // Already in the graph through Hummingbird: spans cost no extra package build.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
    ],
    targets: [
        // MARK: shared libraries
        .systemLibrary(
            name: "CZeroMQ",
            path: "shared/CZeroMQ",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .systemLibrary(
            name: "CArgon2",
            path: "shared/CArgon2",
            providers: [.apt(["libargon2-dev"])]
        ),
        .target(
            name: "ZeroMQ",
            dependencies: ["CZeroMQ"],
            path: "shared/ZeroMQ",
            swiftSettings: strict
        ),
        .target(
            name: "ZMTPFuzz",
            dependencies: ["ZeroMQ", "ServiceKit"],
            path: "shared/ZMTPFuzz",
            swiftSettings: strict
        ),
        .target(
            name: "Majordomo",
            dependencies: [
                "Contract", "ZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "CZeroMQ",
            ],
            path: "shared/Majordomo",
            swiftSettings: strict
        ),
        .target(
            name: "Contract",
            dependencies: [],
            path: "shared/Contract",
            swiftSettings: strict
        ),
        .target(
            name: "AuthContract",
            dependencies: ["Contract"],
            path: "services/auth/AuthContract",
            swiftSettings: strict
        ),
        .target(
            name: "OrdersContract",
            dependencies: ["Contract"],
            path: "services/orders/OrdersContract",
            swiftSettings: strict
        ),
        .target(
            name: "PrintingContract",
            dependencies: ["Contract", "OrdersContract"],
            path: "services/printing/PrintingContract",
            swiftSettings: strict
        ),
        .target(
            name: "RoutingContract",
            dependencies: ["Contract"],
            path: "services/routing/RoutingContract",
            swiftSettings: strict
        ),
        .target(
            name: "NotifyContract",
            dependencies: ["Contract", "OrdersContract", "SocialContract"],
            path: "services/notify/NotifyContract",
            swiftSettings: strict
        ),
        .target(
            name: "PasswordHashing",
            dependencies: ["CArgon2", "Contract", "ServiceKit"],
            path: "shared/PasswordHashing",
            swiftSettings: strict
        ),
        // W3C trace context, spans and the OTLP/HTTP JSON exporter (our own: swift-otel's gRPC
        // and protobuf would add minutes to every clean build).
        .target(
            name: "Telemetry",
            dependencies: [
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "shared/Telemetry",
            swiftSettings: strict
        ),
        .target(
            name: "Store",
            dependencies: [
                "Telemetry",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "shared/Store",
            swiftSettings: strict
        ),
        .target(
            name: "AccessToken",
            dependencies: [.product(name: "JWTKit", package: "jwt-kit")],
            path: "shared/AccessToken",
            swiftSettings: strict
        ),
        .target(
            name: "ServiceKit",
            dependencies: [
                "Contract", "Majordomo", "Store", "Telemetry", "ZeroMQ",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "shared/ServiceKit",
            swiftSettings: strict
        ),

        // The public API's Swift client: types and client generated at build time from the same
        // openapi.yaml as the gateway (`shared/BackplaneClient/openapi.yaml` links to it). Apps
        // pick a transport (swift-openapi-async-http-client or -urlsession); the system tests
        // drive journeys through it with AsyncHTTPClient.
        .target(
            name: "BackplaneClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "shared/BackplaneClient",
            swiftSettings: strict,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // MARK: services
        .target(
            name: "BrokerService",
            dependencies: [
                "Majordomo", "ServiceKit", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), "ZeroMQ",
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "services/broker/BrokerService",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "broker",
            dependencies: ["BrokerService", "ServiceKit"],
            path: "services/broker/main",
            swiftSettings: strict
        ),
        .target(
            name: "GatewayService",
            dependencies: [
                "AuthContract", "CivicContract", "HydrationContract", "NotifyContract", "OrdersContract",
                "PrintingContract", "RoutingContract", "SocialContract",
                "AccessToken", "Contract", "Majordomo", "ServiceKit", "Store", "Telemetry",
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "ZeroMQ",
            ],
            path: "services/gateway/GatewayService",
            resources: [.copy("openapi.yaml"), .copy("Console")],
            swiftSettings: strict,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "gateway",
            dependencies: ["GatewayService", "ServiceKit"],
            path: "services/gateway/main",
            swiftSettings: strict
        ),
        // The reference `make bench-gateway` compares the gateway with: Hummingbird's hello-world.
        .executableTarget(
            name: "gateway-hello",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "services/gateway/bench",
            swiftSettings: strict
        ),
        .target(
            name: "AuthService",
            dependencies: [
                "AuthContract",
                "AccessToken", "Contract", "PasswordHashing", "ServiceKit", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "services/auth/AuthService",
            resources: [.copy("Rules/common-passwords.txt"), .copy("Migrations")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "auth",
            dependencies: ["AuthService", "ServiceKit"],
            path: "services/auth/main",
            swiftSettings: strict
        ),
        .target(
            name: "OrdersService",
            dependencies: [
                "NotifyContract", "OrdersContract", "PrintingContract", "SocialContract",
                "Contract", "ServiceKit", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "services/orders/OrdersService",
            resources: [.copy("Migrations"), .copy("Store/eurofxref-daily.xml")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "orders",
            dependencies: ["OrdersService", "ServiceKit"],
            path: "services/orders/main",
            swiftSettings: strict
        ),
        .target(
            name: "PrintingService",
            dependencies: [
                "AuthContract", "NotifyContract", "OrdersContract", "PrintingContract",
                "CCairoPango", "CImageCodecs", "CLibXML2", "Contract", "ServiceKit", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "services/printing/PrintingService",
            resources: [
                .copy("Migrations"), .copy("Rules/Postage/postage.xsd"), .copy("Rules/Postage/postage-sample.xml"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "printing",
            dependencies: ["PrintingService", "ServiceKit"],
            path: "services/printing/main",
            swiftSettings: strict
        ),
        .target(
            name: "RoutingService",
            dependencies: [
                "AuthContract", "RoutingContract",
                "Contract", "ServiceKit", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "services/routing/RoutingService",
            resources: [.copy("Store/navup-campus.osm"), .copy("Store/sample-timetable.csv"), .copy("Migrations")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "routing",
            dependencies: ["RoutingService", "ServiceKit"],
            path: "services/routing/main",
            swiftSettings: strict
        ),
        .target(
            name: "NotifyService",
            dependencies: [
                "AuthContract", "HydrationContract", "NotifyContract", "PrintingContract", "RoutingContract",
                "Contract", "ServiceKit", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "services/notify/NotifyService",
            resources: [.copy("Migrations")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "notify",
            dependencies: ["NotifyService", "ServiceKit"],
            path: "services/notify/main",
            swiftSettings: strict
        ),
        .target(
            name: "HydrationContract",
            dependencies: ["Contract"],
            path: "services/hydration/HydrationContract",
            swiftSettings: strict
        ),
        .target(
            name: "HydrationService",
            dependencies: [
                "AuthContract", "Contract", "HydrationContract", "ServiceKit", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "services/hydration/HydrationService",
            resources: [.copy("Migrations")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "hydration",
            dependencies: ["HydrationService", "ServiceKit"],
            path: "services/hydration/main",
            swiftSettings: strict
        ),
        .target(
            name: "CivicContract",
            dependencies: ["Contract"],
            path: "services/civic/CivicContract",
            swiftSettings: strict
        ),
        .target(
            name: "CivicService",
            dependencies: [
                "AuthContract", "CivicContract", "Contract", "NotifyContract", "ServiceKit", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "services/civic/CivicService",
            exclude: ["Operations/Boundaries/make_boundaries.py", "Operations/Boundaries/sources"],
            resources: [.copy("Migrations"), .copy("Operations/Boundaries/boundaries.geojson")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "civic",
            dependencies: ["CivicService", "ServiceKit"],
            path: "services/civic/main",
            swiftSettings: strict
        ),
        .target(
            name: "SocialContract",
            dependencies: ["Contract", "OrdersContract"],
            path: "services/social/SocialContract",
            swiftSettings: strict
        ),
        .target(
            name: "SocialService",
            dependencies: [
                "AuthContract", "Contract", "OrdersContract", "SocialContract", "ServiceKit", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "services/social/SocialService",
            resources: [.copy("Migrations")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "social",
            dependencies: ["SocialService", "ServiceKit"],
            path: "services/social/main",
            swiftSettings: strict
        ),
        .target(
            name: "LoadgenKit",
            dependencies: [
                "Majordomo", "ZeroMQ", "ZMTPFuzz", "AccessToken", "PasswordHashing", "ServiceKit",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "services/loadgen/LoadgenKit",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "loadgen",
            dependencies: ["LoadgenKit"],
            path: "services/loadgen/main",
            swiftSettings: strict
        ),

        // MARK: tests
        .target(
            name: "TestSupport",
            dependencies: [
                "Majordomo", "ServiceKit", "Store", "ZeroMQ",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "TelemetryTests",
            dependencies: ["Telemetry", .product(name: "Tracing", package: "swift-distributed-tracing")],
            path: "Tests/TelemetryTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "ZeroMQTests",
            dependencies: ["TestSupport", "ZeroMQ", "ZMTPFuzz", "CZeroMQ"],
            path: "Tests/ZeroMQTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "MajordomoTests",
            dependencies: [
                "TestSupport", "Majordomo", "ZeroMQ", "Contract", "ServiceKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/MajordomoTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "TestSupport",
                "Store", "ServiceKit", "Majordomo", "ZeroMQ", "Contract", "Telemetry",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/StoreTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "TestSupport",
                "AuthContract", "CivicContract", "CivicService", "OrdersContract", "PrintingContract", "RoutingContract",
                "GatewayService", "ServiceKit", "Majordomo", "Contract", "AuthService", "Store",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "ZeroMQ",
            ],
            path: "Tests/GatewayTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AuthTests",
            dependencies: [
                "TestSupport",
                "AuthContract",
                "AccessToken", "AuthService", "Contract", "PasswordHashing", "Store", "ServiceKit", "ZeroMQ",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/AuthTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "RoutingTests",
            dependencies: [
                "TestSupport",
                "RoutingContract",
                "Contract", "RoutingService", "ServiceKit", "Store", "ZeroMQ",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/RoutingTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "OrdersTests",
            dependencies: [
                "TestSupport",
                "OrdersContract", "PrintingContract", "NotifyContract",
                "Contract", "OrdersService", "ServiceKit", "Store", "ZeroMQ",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/OrdersTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "NotifyTests",
            dependencies: [
                "AuthContract", "NotifyContract", "RoutingContract",
                "NotifyService", "Contract", "Store", "ServiceKit", "ZeroMQ", "TestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/NotifyTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "HydrationTests",
            dependencies: [
                "HydrationContract", "HydrationService", "NotifyContract", "NotifyService", "Contract", "Majordomo",
                "ServiceKit", "Store", "TestSupport", "ZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/HydrationTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "CivicTests",
            dependencies: [
                "CivicContract", "CivicService", "Contract", "NotifyContract", "NotifyService", "ServiceKit", "Store",
                "TestSupport", "ZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Tests/CivicTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SocialTests",
            dependencies: [
                "AuthContract", "OrdersContract", "OrdersService", "SocialContract", "SocialService", "Contract",
                "Majordomo", "ServiceKit", "Store", "TestSupport", "ZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/SocialTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "LoadgenTests",
            dependencies: [
                "TestSupport", "LoadgenKit",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/LoadgenTests",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SystemTests",
            dependencies: [
                "AuthContract", "NotifyContract",
                "Majordomo", "Contract", "ServiceKit", "Store", "TestSupport", "CImageCodecs",
                "BackplaneClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                "ZeroMQ",
            ],
            path: "Tests/SystemTests",
            swiftSettings: strict
        ),
        .systemLibrary(
            name: "CLibXML2",
            path: "shared/CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CImageCodecs",
            path: "shared/CImageCodecs",
            providers: [.apt(["libturbojpeg0-dev", "libpng-dev"])]
        ),
        .systemLibrary(
            name: "CCairoPango",
            path: "shared/CCairoPango",
            pkgConfig: "cairo",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]
        ),
        .testTarget(
            name: "PrintingTests",
            dependencies: [
                "TestSupport",
                "NotifyContract", "OrdersContract", "PrintingContract",
                "CImageCodecs", "Contract", "PrintingService", "ServiceKit", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/PrintingTests",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "notify-bench",
            dependencies: [
                "AuthContract", "NotifyContract",
                "NotifyService", "Contract", "Store",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "services/notify/bench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "routing-bench",
            dependencies: [
                "RoutingContract", "RoutingService", "Store", "ServiceKit",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                "Contract",
            ],
            path: "services/routing/bench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "social-bench",
            dependencies: [
                "SocialService", "SocialContract", "Contract", "ServiceKit", "Store", "ZeroMQ",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "services/social/bench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "hydration-bench",
            dependencies: [
                "HydrationService", "HydrationContract", "NotifyContract", "NotifyService", "Contract", "ServiceKit",
                "Store", "ZeroMQ",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "services/hydration/bench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "printing-bench",
            dependencies: [
                "OrdersContract", "PrintingContract", "PrintingService", "Contract", "CImageCodecs", "ServiceKit",
            ],
            path: "services/printing/bench",
            swiftSettings: strict
        ),
    ]
)
