// swift-tools-version: 6.1
import Foundation
import PackageDescription

/// Backplane: one Swift backend for five mobile apps.
///
/// Executables live in `services/<name>/main` and stay thin; everything they run is in library
/// targets (`shared/` for what every process uses, `services/<name>/<Name>Service` for one
/// service's rules) so tests import the same code the processes run. A worker service's targets
/// come from `service(...)` below; `docs/design.md` ("A service's shape") says what goes where. The
/// Swift client app teams add is a package of its own, `clients/swift`.
let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

// Products of the package dependencies, by the module name code imports.
func nio(_ name: String) -> Target.Dependency { .product(name: name, package: "swift-nio") }
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let metrics = Target.Dependency.product(name: "Metrics", package: "swift-metrics")
let postgres = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
let lifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let jwt = Target.Dependency.product(name: "JWTKit", package: "jwt-kit")
let httpClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
let tracing = Target.Dependency.product(name: "Tracing", package: "swift-distributed-tracing")
let openAPIRuntime = Target.Dependency.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")
let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
let openAPIGenerator = Target.PluginUsage.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")

let root = Context.packageDirectory

/// The entries of `folder` (relative to the package), sorted; none when it does not exist.
func entries(_ folder: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "\(root)/\(folder)")) ?? []).sorted()
}

/// A worker service's targets: `<Name>Contract`, `<Name>Service` with its `Migrations/` and every
/// entry of `Resources/` copied to its bundle, the executable `<name>`, `Tests/<Name>Tests`, and
/// `<name>-bench` when `services/<name>/bench` exists. A contract depends on `Contract` and
/// `CommonContract` only, never on another service's contract (`make test` checks it:
/// `deploy/scripts/check-contracts.py`).
func service(
    _ name: String,
    uses: [Target.Dependency],
    tests: [Target.Dependency] = [],
    bench: [Target.Dependency] = [],
    plugins: [Target.PluginUsage]? = nil
) -> [Target] {
    let title = name.prefix(1).uppercased() + name.dropFirst()
    let folder = "services/\(name)"
    let library = "\(folder)/\(title)Service"
    var resources: [Resource] = entries(library).contains("Migrations") ? [.copy("Migrations")] : []
    resources += entries("\(library)/Resources").map { .copy("Resources/\($0)") }
    let own: [Target.Dependency] = [
        "Contract", "CommonContract", .target(name: "\(title)Contract"), "ServiceKit", logging,
    ]
    var targets: [Target] = [
        .target(
            name: "\(title)Contract", dependencies: ["Contract", "CommonContract"], path: "\(folder)/\(title)Contract",
            swiftSettings: strict)
    ]
    targets.append(.target(
        name: "\(title)Service", dependencies: own + uses, path: library, resources: resources,
        swiftSettings: strict, plugins: plugins))
    targets.append(.executableTarget(
        name: name, dependencies: [.target(name: "\(title)Service"), "ServiceKit"], path: "\(folder)/main",
        swiftSettings: strict))
    if entries("Tests").contains("\(title)Tests") {
        targets.append(.testTarget(
            name: "\(title)Tests", dependencies: own + [.target(name: "\(title)Service"), "TestSupport", "Store", "ZeroMQ", postgres] + tests,
            path: "Tests/\(title)Tests", swiftSettings: strict))
    }
    if entries(folder).contains("bench") {
        targets.append(.executableTarget(
            name: "\(name)-bench", dependencies: own + [.target(name: "\(title)Service")] + bench, path: "\(folder)/bench",
            swiftSettings: strict))
    }
    return targets
}

/// A library under `shared/`.
func shared(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .target(name: name, dependencies: dependencies, path: "shared/\(name)", swiftSettings: strict)
}

/// A C library from Debian, imported through `shared/<name>/module.modulemap`.
func system(_ name: String, pkgConfig: String? = nil, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "shared/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

/// A test target under `Tests/` that is not a worker service's.
func tests(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .testTarget(name: name, dependencies: dependencies, path: "Tests/\(name)", swiftSettings: strict)
}

let workers = ["auth", "orders", "printing", "routing", "notify", "hydration", "civic", "social"]

let package = Package(
    name: "Backplane",
    platforms: [.macOS(.v15)],
    products: (["broker", "gateway"] + workers + ["loadgen", "backplane-admin"]).map { .executable(name: $0, targets: [$0]) },
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
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
        // Already in the graph through Hummingbird: spans cost no extra package build.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        // OTLP/HTTP only: the gRPC exporter would add grpc-swift to every build.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // Already in the graph through the OpenAPI generator: the subcommands of backplane-admin
        // and loadgen.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The public API's Swift client, a package of its own (what app teams add, with only the
        // OpenAPI runtime and URLSession behind it); the system tests drive journeys through it.
        .package(path: "clients/swift"),
    ],
    targets: [
        system("CZeroMQ", apt: ["libzmq3-dev"]),
        system("CArgon2", apt: ["libargon2-dev"]),
        system("CLibXML2", pkgConfig: "libxml-2.0", apt: ["libxml2-dev"]),
        system("CImageCodecs", apt: ["libturbojpeg0-dev", "libpng-dev"]),
        system("CCairoPango", pkgConfig: "cairo", apt: ["libcairo2-dev", "libpango1.0-dev"]),
        shared("Contract", []),
        // The value types two or more services' contracts share: `Money`, `PostalAddress`,
        // `PostalRecipient`.
        shared("CommonContract", ["Contract"]),
        shared("ZeroMQ", ["CZeroMQ"]),
        shared("ZMTPFuzz", ["ZeroMQ", "ServiceKit"]),
        shared("Majordomo", ["Contract", "ZeroMQ", "CZeroMQ", logging, lifecycle, nio("NIOCore"), nio("NIOPosix")]),
        shared("PasswordHashing", ["CArgon2", "Contract", "ServiceKit"]),
        // Spans and their export (swift-otel's tracer and OTLP/HTTP exporter), W3C trace context.
        shared("Telemetry", [
            tracing, .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            .product(name: "OTel", package: "swift-otel"), logging, lifecycle,
        ]),
        shared("Store", ["Telemetry", tracing, crypto, postgres, logging, lifecycle, nio("NIOCore")]),
        shared("AccessToken", [jwt]),
        shared("ServiceKit", [
            "Contract", "Majordomo", "Store", "Telemetry", "ZeroMQ", tracing, httpClient, logging, lifecycle, postgres,
            hummingbird, prometheus, nio("NIOCore"),
        ]),
        .target(
            name: "BrokerService", dependencies: ["Majordomo", "ServiceKit", "ZeroMQ", logging, lifecycle, prometheus],
            path: "services/broker/BrokerService", swiftSettings: strict),
        .executableTarget(
            name: "broker", dependencies: ["BrokerService", "ServiceKit"], path: "services/broker/main",
            swiftSettings: strict),
        .target(
            name: "GatewayService",
            dependencies: workers.map { .target(name: $0.prefix(1).uppercased() + $0.dropFirst() + "Contract") } + [
                "AccessToken", "Contract", "Majordomo", "ServiceKit", "Store", "Telemetry", "ZeroMQ", tracing, hummingbird,
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                nio("NIOPosix"), nio("NIOCore"), .product(name: "NIOSSL", package: "swift-nio-ssl"), jwt,
                openAPIRuntime, prometheus, metrics, crypto, httpTypes, logging, lifecycle,
                .product(name: "Yams", package: "Yams"),
            ],
            path: "services/gateway/GatewayService", resources: [.copy("openapi.yaml"), .copy("Console")],
            swiftSettings: strict, plugins: [openAPIGenerator]),
        .executableTarget(
            name: "gateway", dependencies: ["GatewayService", "ServiceKit"], path: "services/gateway/main",
            swiftSettings: strict),
        // The reference `make bench-gateway` compares the gateway with: Hummingbird's hello-world.
        .executableTarget(
            name: "gateway-hello", dependencies: [hummingbird], path: "services/gateway/bench", swiftSettings: strict),
    ]
        + service(
            "auth", uses: ["AccessToken", "PasswordHashing", "Store", postgres, jwt, crypto],
            tests: ["AccessToken", "PasswordHashing", jwt, crypto])
        + service(
            "orders",
            uses: [
                "PrintingContract", "SocialContract", "Store", postgres, httpClient, nio("NIOCore"), nio("NIOHTTP1"),
                crypto, lifecycle,
            ],
            tests: ["PrintingContract", httpClient, nio("NIOCore")])
        + service(
            "printing",
            uses: [
                "AuthContract", "OrdersContract", "CCairoPango", "CImageCodecs", "CLibXML2", "Store", postgres, crypto,
                lifecycle,
            ],
            tests: ["OrdersContract", "CImageCodecs", crypto],
            bench: ["CImageCodecs"])
        + service(
            "routing", uses: ["AuthContract", "Store", postgres, lifecycle], bench: ["Store", postgres])
        + service(
            "notify",
            uses: [
                "AuthContract", "HydrationContract", "OrdersContract", "PrintingContract", "RoutingContract",
                "SocialContract", "Store", postgres, lifecycle, nio("NIOCore"), nio("NIOPosix"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), httpClient, jwt, crypto, metrics, prometheus,
                hummingbird,
            ],
            tests: [
                "AuthContract", "OrdersContract", "PrintingContract", "RoutingContract", hummingbird, jwt,
                nio("NIOCore"), .product(name: "NIOSSL", package: "swift-nio-ssl"), crypto,
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "MetricsTestKit", package: "swift-metrics"), prometheus,
            ],
            bench: ["AuthContract", "Store", postgres, hummingbird, httpClient, nio("NIOCore"), nio("NIOPosix")])
        + service(
            "hydration", uses: ["AuthContract", "Store", postgres],
            tests: ["NotifyContract", "NotifyService", "Majordomo"],
            bench: ["NotifyContract", "NotifyService", "Store", "ZeroMQ", postgres])
        + service(
            "civic",
            uses: [
                "AuthContract", "NotifyContract", "Store", postgres, lifecycle, httpClient, nio("NIOCore"),
                nio("NIOHTTP1"), crypto,
            ],
            tests: ["NotifyContract", "NotifyService", httpClient])
        + service(
            "social",
            uses: [
                "AuthContract", "OrdersContract", "Store", postgres, crypto, httpClient, nio("NIOCore"), nio("NIOHTTP1"),
            ],
            tests: ["AuthContract", "OrdersContract", "OrdersService", "Majordomo", httpClient, nio("NIOCore")],
            bench: ["Store", "ZeroMQ", postgres])
        + [
            .target(
                name: "LoadgenKit",
                dependencies: [
                    .product(name: "ArgumentParser", package: "swift-argument-parser"), "Majordomo", "ZeroMQ", "ZMTPFuzz",
                    "AccessToken", "PasswordHashing", "ServiceKit", jwt, logging,
                    .product(name: "Histogram", package: "hdrhistogram-swift"), httpClient, nio("NIOHTTP1"),
                    nio("NIOPosix"), nio("NIOCore"),
                ],
                path: "services/loadgen/LoadgenKit", swiftSettings: strict),
            .executableTarget(
                name: "loadgen", dependencies: ["LoadgenKit"], path: "services/loadgen/main", swiftSettings: strict),
            // `make up`'s supervisor, run by deploy/scripts/up.sh: plans, starts, tags, restarts and
            // stops the processes of one machine.
            .target(name: "UpKit", path: "tools/up/UpKit", swiftSettings: strict),
            .executableTarget(
                name: "backplane-up", dependencies: ["UpKit"], path: "tools/up/main", swiftSettings: strict),
            // The operator's command line, backplane-admin: it asks the owning services over the
            // bus, and links their migrations and settings to migrate and check them.
            .target(
                name: "AdminKit",
                dependencies: [
                    .product(name: "ArgumentParser", package: "swift-argument-parser"), "AuthContract", "BrokerService",
                    "Contract", "GatewayService", "Majordomo", "ServiceKit", "Store", logging,
                ] + workers.map { .target(name: $0.prefix(1).uppercased() + $0.dropFirst() + "Service") },
                path: "tools/admin/AdminKit", swiftSettings: strict),
            .executableTarget(
                name: "backplane-admin", dependencies: ["AdminKit"], path: "tools/admin/main", swiftSettings: strict),

            .target(
                name: "TestSupport",
                dependencies: ["Contract", "Majordomo", "ServiceKit", "Store", "ZeroMQ", postgres, logging],
                path: "Tests/TestSupport", swiftSettings: strict),
            tests("TelemetryTests", ["TestSupport", "Telemetry", tracing, lifecycle, logging]),
            tests("ZeroMQTests", ["TestSupport", "ZeroMQ", "ZMTPFuzz", "CZeroMQ"]),
            tests(
                "MajordomoTests",
                ["TestSupport", "Majordomo", "ZeroMQ", "Contract", "ServiceKit", logging, nio("NIOCore"), nio("NIOPosix")]),
            tests(
                "StoreTests",
                [
                    "TestSupport", "Store", "ServiceKit", "Majordomo", "ZeroMQ", "Contract", "Telemetry", nio("NIOCore"),
                    nio("NIOPosix"), tracing, postgres, lifecycle, logging,
                ]),
            tests(
                "GatewayTests",
                [
                    "TestSupport", "AuthContract", "CivicContract", "CivicService", "HydrationContract", "OrdersContract",
                    "PrintingContract", "RoutingContract", "GatewayService", "ServiceKit", "Majordomo", "Contract", "AuthService", "Store",
                    "ZeroMQ", .product(name: "HummingbirdTesting", package: "hummingbird"), httpTypes, hummingbird,
                    logging, openAPIRuntime, prometheus, nio("NIOCore"), postgres,
                ]),
            tests("LoadgenTests", ["TestSupport", "LoadgenKit", nio("NIOCore"), nio("NIOHTTP1"), nio("NIOPosix")]),
            tests("UpTests", ["UpKit"]),
            // The fault run's reconciliation (deploy/scripts/fault-run.sh), proven on a seeded
            // database when the fault run is not calling.
            tests(
                "ReconcileTests",
                [
                    "TestSupport", "Store", "OrdersService", "SocialService", "PrintingService", "NotifyService",
                    "HydrationService", "CivicService", postgres, logging, httpClient, nio("NIOCore"),
                ]),
            tests(
                "SystemTests",
                [
                    "AuthContract", "OrdersContract", "Majordomo", "Contract", "ServiceKit", "Store", "TestSupport",
                    "CImageCodecs", "ZeroMQ", httpClient,
                    // The client over AsyncHTTPClient's transport, as the other system tests send.
                    .product(name: "BackplaneClient", package: "swift"),
                    .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"), postgres,
                    crypto, logging, openAPIRuntime,
                ]),
        ]
)
