// swift-tools-version: 6.1
import PackageDescription

/// The Swift client of Backplane's public API, the package app teams add: types and client
/// generated at build time from the gateway's OpenAPI document (`Sources/BackplaneClient/openapi.yaml`
/// is a link to `services/gateway/GatewayService/openapi.yaml`; a published copy holds the file
/// itself), sent over URLSession unless the app gives another transport. docs/api.md says how
/// to add it and how it is published.
let package = Package(
    name: "backplane-swift-client",
    // URLSession streams request and response bodies from iOS 15 and macOS 12 on.
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [.library(name: "BackplaneClient", targets: ["BackplaneClient"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .target(
            name: "BackplaneClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]),
        .testTarget(
            name: "BackplaneClientTests",
            dependencies: [
                "BackplaneClient",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
    ]
)
