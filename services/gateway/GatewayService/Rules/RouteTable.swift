import HTTPTypes
import OpenAPIRuntime

/// The paths and methods of the public API, as the generated code registered them on the router
/// (so, those of `openapi.yaml`): tells a known path asked with the wrong method (405, with the
/// methods it has) from a path that does not exist (404).
struct RouteTable: Sendable {
    /// One registered path template, e.g. `/v1/me/devices/{deviceId}`, and its methods.
    struct Route: Sendable {
        /// The template's segments; `nil` stands for a parameter.
        let segments: [String?]
        var methods: [HTTPRequest.Method]

        /// Segments that are fixed text: with two templates matching a path, the router prefers
        /// the one with more of them.
        var literalCount: Int { segments.count { $0 != nil } }

        func matches(_ path: [Substring]) -> Bool {
            path.count == segments.count
                && zip(segments, path).allSatisfy { template, segment in template.map { $0 == segment } ?? true }
        }
    }

    private(set) var routes: [Route] = []

    /// Adds `method` on `template` (`{name}` segments are parameters).
    mutating func add(_ method: HTTPRequest.Method, _ template: String) {
        let segments = Self.segments(of: template).map { segment -> String? in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? nil : String(segment)
        }
        if let index = routes.firstIndex(where: { $0.segments == segments }) {
            if !routes[index].methods.contains(method) { routes[index].methods.append(method) }
        } else {
            routes.append(Route(segments: segments, methods: [method]))
        }
    }

    /// The methods `path` (a request's path, without the query) is served with (GET, HEAD, POST,
    /// PUT, PATCH, DELETE, OPTIONS in that order); empty when no template matches it.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let segments = Self.segments(of: path)
        let matching = routes.filter { $0.matches(segments) }
        guard let best = matching.map(\.literalCount).max() else { return [] }
        var methods: [HTTPRequest.Method] = []
        for route in matching where route.literalCount == best {
            for method in route.methods where !methods.contains(method) { methods.append(method) }
        }
        return methods.sorted { Self.rank($0) < Self.rank($1) }
    }

    /// The order `Allow` lists methods in, whichever way they were registered.
    private static func rank(_ method: HTTPRequest.Method) -> Int {
        [.get, .head, .post, .put, .patch, .delete, .options].firstIndex(of: method) ?? 7
    }

    private static func segments(of path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }
}

extension RouteTable {
    /// The routes `api` registers, found by letting it register them on a ``Recorder``.
    init(registeredBy api: some APIProtocol) throws {
        let recorder = Recorder()
        try api.registerHandlers(on: recorder)
        self = recorder.table
    }

    /// A `ServerTransport` that only writes down the routes the generated `registerHandlers`
    /// adds; nothing is served through it.
    final class Recorder: ServerTransport {
        fileprivate(set) var table = RouteTable()

        func register(
            _ handler:
                @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (
                    HTTPResponse, HTTPBody?
                ),
            method: HTTPRequest.Method,
            path: String
        ) throws {
            table.add(method, path)
        }
    }
}
