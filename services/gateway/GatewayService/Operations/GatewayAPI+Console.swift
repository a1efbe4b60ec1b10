import Contract
import Foundation
import OpenAPIRuntime

/// `/console`: the operator console's three files, shipped as the gateway's resources
/// (`Console/`), read once and served from memory. Its security headers come from
/// ``ConsoleHeadersMiddleware``.
extension GatewayAPI {
    func getConsole(_ input: Operations.GetConsole.Input) async throws -> Operations.GetConsole.Output {
        .ok(.init(body: .html(HTTPBody(try ConsoleFiles.loaded.page))))
    }

    func getConsoleScript(_ input: Operations.GetConsoleScript.Input) async throws
        -> Operations.GetConsoleScript.Output
    {
        .ok(.init(body: .textJavascript(HTTPBody(try ConsoleFiles.loaded.script))))
    }

    func getConsoleStyle(_ input: Operations.GetConsoleStyle.Input) async throws -> Operations.GetConsoleStyle.Output {
        .ok(.init(body: .textCss(HTTPBody(try ConsoleFiles.loaded.style))))
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
