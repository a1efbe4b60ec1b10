import Foundation
import Hummingbird

/// The reference `make bench-gateway` measures the gateway against: Hummingbird's hello-world,
/// release build, on the same machine in the same run. It answers `GET /hello` with 13 bytes of
/// text and nothing else, so its rate is what the HTTP server alone can do here.
///
///     gateway-hello [PORT]     (default 8099; binds 127.0.0.1)
let port = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 8099
let router = Router()
router.get("/hello") { _, _ in "Hello, world!" }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
