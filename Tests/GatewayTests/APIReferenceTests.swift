import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Majordomo
import Prometheus
import ServiceKit
import Testing

@testable import GatewayService

/// `/docs`: the API reference (Swagger UI from the folder `API_DOCS_DIR` names), through the
/// application the executable runs, in process. No broker is needed: nothing here asks one.
@Suite("gateway: the API reference at /docs")
struct APIReferenceTests {
    /// The gateway with `API_DOCS_DIR` set to `folder`.
    func app(docs folder: String) throws -> some ApplicationProtocol {
        let broker = "tcp://127.0.0.1:1"
        let settings = try GatewaySettings(
            ProcessEnvironment(["BROKER_URL": broker, "HTTP_PORT": "0", "API_DOCS_DIR": folder]))
        let client = try #require(MajordomoClient(endpoint: broker, logger: GatewayTests.logger))
        return try Gateway.buildApplication(
            settings: settings, bus: BusClient(client: client), logger: GatewayTests.logger, services: [client])
    }

    /// A folder with stand-ins for Swagger UI's two files and one file that must never be served.
    func withFolder(_ body: (URL) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "api-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("window.SwaggerUIBundle = function () {};\n".utf8).write(to: folder.appending(path: "swagger-ui-bundle.js"))
        try Data(".swagger-ui { color: black; }\n".utf8).write(to: folder.appending(path: "swagger-ui.css"))
        try Data("secret".utf8).write(to: folder.appending(path: "secret.txt"))
        try await body(folder)
    }

    static let policyName = HTTPField.Name("Content-Security-Policy")!

    @Test("/docs, its script and Swagger UI's files come from our page and the folder, with the console's security headers")
    func served() async throws {
        try await withFolder { folder in
            try await app(docs: folder.path).test(.router) { client in
                for (uri, type) in [
                    ("/docs", "text/html"), ("/docs/init.js", "text/javascript"),
                    ("/docs/swagger-ui-bundle.js", "text/javascript"), ("/docs/swagger-ui.css", "text/css"),
                ] {
                    let response = try await client.execute(uri: uri, method: .get)
                    #expect(response.status == .ok, "\(uri)")
                    #expect(response.headers[.contentType]?.hasPrefix(type) == true, "\(uri)")
                    let policy = try #require(response.headers[Self.policyName], "\(uri)")
                    #expect(policy.contains("default-src 'self'") && policy.contains("script-src 'self'"), "\(uri)")
                    #expect(policy == ConsoleHeadersMiddleware<BasicRequestContext>.policy && !policy.contains("unsafe"))
                    #expect(response.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(uri)")
                    #expect(response.headers[.cacheControl] != nil, "\(uri)")
                }
                let page = String(buffer: try await client.execute(uri: "/docs", method: .get).body)
                #expect(page.contains(#"<div id="swagger-ui">"#))
                #expect(page.contains(#"src="/docs/swagger-ui-bundle.js""#) && page.contains(#"src="/docs/init.js""#))
                #expect(page.contains(#"href="/docs/swagger-ui.css""#))
                #expect(!page.contains("<script>") && !page.contains("<style") && !page.contains("style="))
                #expect(!page.contains("http://") && !page.contains("https://"), "nothing from elsewhere")
                let script = String(buffer: try await client.execute(uri: "/docs/init.js", method: .get).body)
                #expect(script.contains("SwaggerUIBundle(") && script.contains(#"url: "/openapi.yaml""#))
                let bundle = try await client.execute(uri: "/docs/swagger-ui-bundle.js", method: .get)
                #expect(String(buffer: bundle.body) == "window.SwaggerUIBundle = function () {};\n")
                #expect(bundle.headers[.cacheControl] == "public, max-age=86400")
                #expect(try await client.execute(uri: "/docs", method: .get).headers[.cacheControl] == "no-cache")

                // Tagged by its bytes: a client holding them gets a 304 without a body.
                let tag = try #require(bundle.headers[.eTag])
                let again = try await client.execute(
                    uri: "/docs/swagger-ui-bundle.js", method: .get, headers: [.ifNoneMatch: tag])
                #expect(again.status == .notModified && again.body.readableBytes == 0)
                let other = try await client.execute(
                    uri: "/docs/swagger-ui-bundle.js", method: .get, headers: [.ifNoneMatch: "\"other\""])
                #expect(other.status == .ok)

                // HEAD as GET, without the body; other methods are 405.
                for uri in ["/docs", "/docs/init.js", "/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css"] {
                    let head = try await client.execute(uri: uri, method: .head)
                    #expect(head.status == .ok && head.body.readableBytes == 0, "\(uri)")
                    #expect(head.headers[Self.policyName] != nil, "\(uri)")
                }
                let post = try await client.execute(uri: "/docs", method: .post)
                #expect(post.status == .methodNotAllowed && post.headers[.allow] == "GET, HEAD")
            }
        }
    }

    @Test("only the four named files: another file of the folder, an unknown name or a path out of it is 404")
    func onlyNamedFiles() async throws {
        try await withFolder { folder in
            try await app(docs: folder.path).test(.router) { client in
                for uri in [
                    "/docs/secret.txt", "/docs/index.html", "/docs/swagger-ui-bundle.js.map", "/docs/../secret.txt",
                    "/docs/%2e%2e/secret.txt", "/docs/..%2fsecret.txt", "/docs/../../etc/passwd",
                    "/docs/init.js/../swagger-ui.css/x", "/docs//etc/passwd",
                ] {
                    let response = try await client.execute(uri: uri, method: .get)
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(!String(buffer: response.body).contains("secret") || uri == "/docs/secret.txt", "\(uri)")
                }
            }
        }
    }

    @Test("without Swagger UI (setting empty or folder missing) /docs says so with a link to /openapi.yaml, and its files are 404")
    func notInstalled() async throws {
        for folder in ["", "/nonexistent/api-docs-\(UUID().uuidString)"] {
            try await app(docs: folder).test(.router) { client in
                let page = try await client.execute(uri: "/docs", method: .get)
                #expect(page.status == .ok, "\(folder)")
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(page.headers[Self.policyName] != nil)
                let text = String(buffer: page.body)
                #expect(text.contains("not installed") && text.contains(#"href="/openapi.yaml""#))
                #expect(!text.contains("<script"))
                #expect(try await client.execute(uri: "/docs/init.js", method: .get).status == .ok)
                for uri in ["/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css"] {
                    #expect(try await client.execute(uri: uri, method: .get).status == .notFound, "\(uri)")
                }
            }
        }
    }
}
