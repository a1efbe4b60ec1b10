import Contract
import HTTPTypes
import Synchronization
import Yams

/// One operation of the OpenAPI document as the gateway serves it, read from the document at
/// start: its owner and bus operation, who may call it (`x-backplane`), its parameters with what
/// their schemas say about them, whether it takes a JSON body, and its success statuses.
struct DocumentOperation: Sendable {
    /// Who may call.
    enum Access: Sendable, Equatable {
        /// Anyone; the caller goes along when there is one.
        case anyone
        /// A signed-in caller (401 otherwise).
        case user
        /// A signed-in caller holding the role (401, then 403, before the request is read).
        case role(Role)
    }

    /// A path, query or header parameter and what its schema says about its values.
    struct Parameter: Sendable, Equatable {
        enum Location: String, Sendable { case path, query, header }
        enum Kind: Sendable, Equatable { case string, integer, number, boolean }
        let name: String
        let location: Location
        let required: Bool
        let kind: Kind
        /// Given as a list (`?tag=a&tag=b`); each element is of ``kind``.
        let isArray: Bool
        let allowed: [String]?
        let minimum: Double?
        let maximum: Double?
        let minLength: Int?
        let maxLength: Int?
    }

    let operationId: String
    let method: HTTPRequest.Method
    /// The path template as the document writes it (`/v1/things/{id}`).
    let path: String
    /// The owner: a worker's MDP service name, `gateway` for the gateway's own endpoints, `*`
    /// for every worker, `{name}` for the one a path parameter names.
    let service: String
    /// The bus operation's name.
    let operation: String?
    let access: Access
    /// Whether a request that got no answer may be sent again.
    let repeatable: Bool
    /// The parameters that go into the payload (path, query, and headers other than those of
    /// HTTP's own protocols), each a member named as the document names it.
    let parameters: [Parameter]
    /// Whether the document declares an `Idempotency-Key` header, carried in the call's metadata,
    /// and whether it must be given.
    let takesIdempotencyKey: Bool
    let requiresIdempotencyKey: Bool
    /// Header parameters whose meaning is HTTP's own (conditions, negotiation, tus, a signature
    /// over the body's bytes): the one path cannot honour them as members of a payload.
    let otherHeaders: [String]
    /// Whether the request has a JSON body, and whether it must.
    let jsonBody: Bool
    let bodyRequired: Bool
    /// Request body types other than JSON (a binary or text body).
    let otherBodyTypes: [String]
    /// The success statuses, in the document's order.
    let successes: [Int]
    /// Whether a successful reply is tagged: the document lists a 304.
    let tagged: Bool
    /// `Cache-Control` of a successful answer (`x-backplane.cacheControl`).
    let cacheControl: String?
    /// The most bytes of body read (`x-backplane.maxBodyBytes`), when less than the upload limit.
    let maxBodyBytes: Int?
    /// Members the payload always has (`x-backplane.set`): one bus operation behind several paths,
    /// e.g. `{status: printed}`.
    let constants: [(name: String, value: String)]

    /// The status of a successful answer: 201 when the service made something new and the
    /// document lists 201, else the document's other success status.
    func status(created: Bool) -> Int {
        if created, successes.contains(201) { return 201 }
        return successes.first { $0 != 201 || successes.count == 1 } ?? 200
    }

    /// The document's operations, read once per process (the gateway's tests build many
    /// applications from the same document).
    static func read(_ document: [UInt8]) throws -> [DocumentOperation] {
        try cache.withLock { cached in
            if let cached, cached.document == document { return cached.operations }
            let operations = try all(in: document)
            cached = (document, operations)
            return operations
        }
    }

    private static let cache = Mutex<(document: [UInt8], operations: [DocumentOperation])?>(nil)

    /// The document's operations, in its order.
    static func all(in document: [UInt8]) throws -> [DocumentOperation] {
        guard let root = try Yams.load(yaml: String(decoding: document, as: UTF8.self)) as? [String: Any],
            let paths = root["paths"] as? [String: Any]
        else { throw DocumentError("the document has no paths") }
        let resolver = Resolver(root: root)
        var operations: [DocumentOperation] = []
        for (path, item) in paths.sorted(by: { $0.key < $1.key }) {
            guard let item = item as? [String: Any] else { continue }
            let shared = item["parameters"] as? [Any] ?? []
            for method in ["get", "head", "options", "post", "put", "patch", "delete"] {
                guard let entry = item[method] as? [String: Any] else { continue }
                operations.append(
                    try DocumentOperation(
                        path: path, method: HTTPRequest.Method(method.uppercased())!, entry: entry, shared: shared,
                        resolver: resolver))
            }
        }
        return operations
    }

    /// Headers (lowercased) that mean something to HTTP or tus rather than to the owner; an
    /// operation declaring one needs the gateway's own handling (``GatewayExceptions``).
    static let protocolHeaders: Set<String> = [
        "if-match", "if-unmodified-since", "if-modified-since", "if-range", "accept-language", "tus-resumable",
        "upload-length", "upload-offset", "upload-metadata", "stripe-signature",
    ]

    struct DocumentError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private init(
        path: String, method: HTTPRequest.Method, entry: [String: Any], shared: [Any], resolver: Resolver
    ) throws {
        guard let id = entry["operationId"] as? String else {
            throw DocumentError("\(method) \(path) has no operationId")
        }
        guard let owner = entry["x-backplane"] as? [String: Any], let service = owner["service"] as? String else {
            throw DocumentError("\(id) has no x-backplane.service")
        }
        operationId = id
        self.method = method
        self.path = path
        self.service = service
        operation = owner["operation"] as? String
        switch owner["access"] as? String {
        case "anyone": access = .anyone
        case "user": access = .user
        case let role?: access = .role(Role(rawValue: role))
        case nil: throw DocumentError("\(id) has no x-backplane.access")
        }
        repeatable = owner["repeatable"] as? Bool ?? false
        cacheControl = owner["cacheControl"] as? String
        maxBodyBytes = owner["maxBodyBytes"] as? Int
        constants = ((owner["set"] as? [String: Any]) ?? [:]).map { ($0.key, "\($0.value)") }.sorted { $0.name < $1.name }
        var parameters: [Parameter] = []
        var idempotencyKey = false
        var keyRequired = false
        var headers: [String] = []
        for raw in shared + (entry["parameters"] as? [Any] ?? []) {
            let parameter = try resolver.object(raw)
            guard let name = parameter["name"] as? String, let place = parameter["in"] as? String,
                let location = Parameter.Location(rawValue: place)
            else { continue }
            if location == .header {
                switch name.lowercased() {
                case "idempotency-key":
                    idempotencyKey = true
                    keyRequired = parameter["required"] as? Bool ?? false
                case "if-none-match": break
                case let other where Self.protocolHeaders.contains(other): headers.append(name)
                default:
                    parameters.append(
                        try Parameter(
                            name: name, location: location, required: parameter["required"] as? Bool ?? false,
                            schema: try resolver.object(parameter["schema"] ?? [String: Any]()), resolver: resolver))
                }
                continue
            }
            parameters.append(
                try Parameter(
                    name: name, location: location, required: parameter["required"] as? Bool ?? false,
                    schema: try resolver.object(parameter["schema"] ?? [String: Any]()), resolver: resolver))
        }
        self.parameters = parameters
        takesIdempotencyKey = idempotencyKey
        requiresIdempotencyKey = keyRequired
        otherHeaders = headers
        let body = (try resolver.object(entry["requestBody"] ?? [String: Any]()))
        let types = (body["content"] as? [String: Any])?.keys.sorted() ?? []
        jsonBody = types.contains("application/json")
        bodyRequired = body["required"] as? Bool ?? false
        otherBodyTypes = types.filter { $0 != "application/json" }
        let responses = entry["responses"] as? [String: Any] ?? [:]
        let statuses = responses.keys.compactMap { Int($0) }
        successes = statuses.filter { (200..<300).contains($0) }.sorted()
        tagged = statuses.contains(304)
    }

    /// Follows local `$ref`s (`#/components/...`).
    struct Resolver {
        let root: [String: Any]

        func object(_ value: Any) throws -> [String: Any] {
            guard var object = value as? [String: Any] else { return [:] }
            var hops = 0
            while let reference = object["$ref"] as? String {
                guard reference.hasPrefix("#/"), hops < 16 else { throw DocumentError("cannot follow \(reference)") }
                var node: Any = root
                for part in reference.dropFirst(2).split(separator: "/") {
                    guard let next = (node as? [String: Any])?[String(part)] else {
                        throw DocumentError("\(reference) is not in the document")
                    }
                    node = next
                }
                object = node as? [String: Any] ?? [:]
                hops += 1
            }
            return object
        }
    }
}

extension DocumentOperation.Access {
    /// 401 when the rule needs a caller and there is none, 403 when the caller lacks the role.
    func check(_ scope: RequestScope) throws(ServiceError) {
        switch self {
        case .anyone: break
        case .user: _ = try scope.requireActor()
        case .role(let role):
            guard try scope.requireActor().has(role) else {
                throw ServiceError(.permissionDenied, "this needs the \(role.rawValue) role")
            }
        }
    }
}

extension DocumentOperation.Parameter {
    fileprivate init(
        name: String, location: Location, required: Bool, schema: [String: Any], resolver: DocumentOperation.Resolver
    ) throws {
        self.name = name
        self.location = location
        self.required = required || location == .path
        var schema = schema
        var isArray = false
        if Self.type(of: schema) == "array" {
            isArray = true
            schema = try resolver.object(schema["items"] ?? [String: Any]())
        }
        self.isArray = isArray
        switch Self.type(of: schema) {
        case "integer": kind = .integer
        case "number": kind = .number
        case "boolean": kind = .boolean
        default: kind = .string
        }
        allowed = (schema["enum"] as? [Any])?.map { "\($0)" }
        minimum = (schema["minimum"] as? any SchemaNumber)?.double
        maximum = (schema["maximum"] as? any SchemaNumber)?.double
        minLength = schema["minLength"] as? Int
        maxLength = schema["maxLength"] as? Int
    }

    /// A schema's `type`: the one named, or the first that is not `null` of a list.
    private static func type(of schema: [String: Any]) -> String? {
        if let type = schema["type"] as? String { return type }
        return (schema["type"] as? [String])?.first { $0 != "null" }
    }
}

/// The numbers Yams reads (`Int` or `Double`) as a `Double`.
private protocol SchemaNumber { var double: Double { get } }
extension Int: SchemaNumber { var double: Double { Double(self) } }
extension Double: SchemaNumber { var double: Double { self } }
