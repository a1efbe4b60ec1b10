import Contract
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `/console`: the operator console's three files, shipped as the gateway's resources
/// (`Console/`), read once and served from memory, on the operator listener only
/// (`OPERATOR_HTTP_PORT`): the console is no part of the apps' API, and the apps' port answers
/// 404 under `/console`. Its security headers come from ``ConsoleHeadersMiddleware``.
enum ConsoleRoute {
    /// Each file's path and `Content-Type`.
    static func files() throws -> [(path: String, contentType: String, body: [UInt8])] {
        let files = try ConsoleFiles.loaded
        return [
            ("/console", "text/html; charset=utf-8", files.page),
            ("/console/console.js", "text/javascript; charset=utf-8", files.script),
            ("/console/console.css", "text/css; charset=utf-8", files.style),
        ]
    }

    /// Serves the three files on `router` (GET and HEAD).
    static func register<Context: RequestContext>(on router: Router<Context>) throws {
        for file in try files() {
            let buffer = ByteBuffer(bytes: file.body)
            let headers: HTTPFields = [.contentType: file.contentType]
            for method in [HTTPRequest.Method.get, .head] {
                router.on(RouterPath(file.path), method: method) { _, _ in
                    Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
                }
            }
        }
    }
}

/// The console's page, script and style sheet.
struct ConsoleFiles: Sendable {
    let page: [UInt8]
    let script: [UInt8]
    let style: [UInt8]

    /// Read from the gateway's resources at first use; a missing file is a 500 naming it.
    static var loaded: ConsoleFiles {
        get throws { try cached.get() }
    }

    private static let cached = Result { try ConsoleFiles.read() }

    static func read() throws -> ConsoleFiles {
        func file(_ name: String, _ ext: String) throws -> [UInt8] {
            guard let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Console") else {
                throw ServiceError(.internal, "Console/\(name).\(ext) is missing from the gateway's resources")
            }
            return Array(try Data(contentsOf: url))
        }
        return ConsoleFiles(
            page: try file("index", "html"), script: try file("console", "js"), style: try file("console", "css"))
    }
}
