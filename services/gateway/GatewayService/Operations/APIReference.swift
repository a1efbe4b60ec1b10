import Contract
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// `/docs`: the API reference, Swagger UI 5 rendering `/openapi.yaml`.
///
/// Swagger UI is not part of this repository: `API_DOCS_DIR` names a folder holding its
/// `swagger-ui-bundle.js` and `swagger-ui.css` (the PyPI package `swagger-ui-bundle-v2`, which
/// bootstrap.sh installs; up.sh and the image point the setting at it). The page and the script
/// that starts Swagger UI are ours, below. The two files are read once, when the gateway starts,
/// and served from memory; nothing else of the folder is ever read, so no request path can name
/// another file. With the setting empty or the files unreadable, `/docs` is a page saying the
/// reference is not installed (200) and the two files are 404.
///
/// The document lists these routes as it lists the rest; like ``FixedRoute``s they are left out
/// of the generator's list and registered here. Their security headers come from
/// ``ConsoleHeadersMiddleware``: the console's policy, which Swagger UI 5 runs under unchanged.
struct APIReference: Sendable {
    /// One file of the reference.
    struct File: Sendable {
        let operationId: String
        let path: String
        let contentType: String
        /// Our own files are asked again each time (`no-cache`); Swagger UI's, tagged by their
        /// bytes, are kept for a day.
        let cacheControl: String
    }

    static let page = File(
        operationId: "getAPIReference", path: "/docs", contentType: "text/html; charset=utf-8",
        cacheControl: "no-cache")
    static let script = File(
        operationId: "getAPIReferenceScript", path: "/docs/init.js", contentType: "text/javascript; charset=utf-8",
        cacheControl: "no-cache")
    static let bundle = File(
        operationId: "getAPIReferenceBundle", path: "/docs/swagger-ui-bundle.js",
        contentType: "text/javascript; charset=utf-8", cacheControl: "public, max-age=86400")
    static let style = File(
        operationId: "getAPIReferenceStyle", path: "/docs/swagger-ui.css", contentType: "text/css; charset=utf-8",
        cacheControl: "public, max-age=86400")

    /// Every route of the reference, each served with GET and HEAD (the gateway's router does not
    /// answer HEAD by itself).
    static let all: [File] = [page, script, bundle, style]

    /// Swagger UI's two files, or nil when it is not installed.
    let swaggerUI: (bundle: [UInt8], style: [UInt8])?

    /// Reads `swagger-ui-bundle.js` and `swagger-ui.css` from `folder` (empty: not installed).
    /// A folder without them is logged and served as not installed, never a failed start.
    init(folder: String, logger: Logger) {
        guard !folder.isEmpty else {
            swaggerUI = nil
            return
        }
        let base = URL(filePath: folder, directoryHint: .isDirectory)
        do {
            let bundle = Array(try Data(contentsOf: base.appending(path: "swagger-ui-bundle.js")))
            let style = Array(try Data(contentsOf: base.appending(path: "swagger-ui.css")))
            swaggerUI = (bundle, style)
        } catch {
            logger.warning(
                "API_DOCS_DIR has no readable swagger-ui-bundle.js and swagger-ui.css; /docs says the reference is not installed",
                metadata: ["folder": "\(folder)", "error": "\(error)"])
            swaggerUI = nil
        }
    }

    /// Serves the four routes on `router`, with GET and HEAD.
    func register<Context: RequestContext>(on router: Router<Context>) {
        if let swaggerUI {
            Self.serve(Self.page, Array(Self.pageHTML.utf8), on: router)
            Self.serve(Self.script, Array(Self.initScript.utf8), on: router)
            Self.serve(Self.bundle, swaggerUI.bundle, tagged: true, on: router)
            Self.serve(Self.style, swaggerUI.style, tagged: true, on: router)
        } else {
            Self.serve(Self.page, Array(Self.notInstalledHTML.utf8), on: router)
            Self.serve(Self.script, Array(Self.initScript.utf8), on: router)
            for file in [Self.bundle, Self.style] {
                for method in [HTTPRequest.Method.get, .head] {
                    router.on(RouterPath(file.path), method: method) { _, _ -> Response in
                        throw ServiceError(.notFound, "the API reference is not installed (API_DOCS_DIR); see /openapi.yaml")
                    }
                }
            }
        }
    }

    /// `file` answered with `body`, made into one buffer once; with `tagged`, a strong ETag of
    /// the bytes and a 304 for a client that holds them.
    private static func serve<Context: RequestContext>(
        _ file: File, _ body: [UInt8], tagged: Bool = false, on router: Router<Context>
    ) {
        let buffer = ByteBuffer(bytes: body)
        let tag = tagged ? EntityTag(body, from: .content) : nil
        var fields: HTTPFields = [.contentType: file.contentType, .cacheControl: file.cacheControl]
        if let tag { fields[.eTag] = tag.value }
        let headers = fields
        @Sendable func respond(_ request: Request) -> Response {
            if let tag, tag.isMatched(by: request.headers[.ifNoneMatch]) {
                var notModified = headers
                notModified[.contentType] = nil
                return Response(status: .notModified, headers: notModified, body: ResponseBody())
            }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
        }
        router.get(RouterPath(file.path)) { request, _ in respond(request) }
        router.head(RouterPath(file.path)) { request, _ in respond(request).createHeadResponse() }
    }

    /// The page: Swagger UI's style sheet and script, and ours that starts it. No inline script
    /// or style (the policy forbids them); an empty icon, so that the browser does not ask for
    /// `/favicon.ico`.
    static let pageHTML = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Backplane API reference</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="/docs/swagger-ui.css">
        </head>
        <body>
        <noscript><p>The reference needs JavaScript; the document itself is at <a href="/openapi.yaml">/openapi.yaml</a>.</p></noscript>
        <div id="swagger-ui"></div>
        <script src="/docs/swagger-ui-bundle.js"></script>
        <script src="/docs/init.js"></script>
        </body>
        </html>

        """

    /// What `/docs` says when Swagger UI is not installed.
    static let notInstalledHTML = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Backplane API reference</title>
        <link rel="icon" href="data:,">
        </head>
        <body>
        <h1>Backplane API reference</h1>
        <p>The rendered reference is not installed on this gateway (its setting <code>API_DOCS_DIR</code>
        names no folder with Swagger UI's <code>swagger-ui-bundle.js</code> and <code>swagger-ui.css</code>).</p>
        <p>The OpenAPI document itself is at <a href="/openapi.yaml">/openapi.yaml</a>.</p>
        </body>
        </html>

        """

    /// Starts Swagger UI on the gateway's own document: its base layout (no top bar, whose
    /// script is a second bundle), no validator badge (it would ask validator.swagger.io), no
    /// "Try it out" (the reference reads; apps call the API).
    static let initScript = """
        "use strict";
        window.addEventListener("DOMContentLoaded", function () {
          window.ui = SwaggerUIBundle({
            url: "/openapi.yaml",
            dom_id: "#swagger-ui",
            presets: [SwaggerUIBundle.presets.apis],
            layout: "BaseLayout",
            deepLinking: true,
            validatorUrl: null,
            supportedSubmitMethods: [],
            defaultModelsExpandDepth: 0
          });
        });

        """
}
