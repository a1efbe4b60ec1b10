import Foundation

/// The frame contract of docs/design.md on top of an MDP body.
///
/// Request body: `[operation][metadata JSON][payload JSON]`.
/// Reply body: `[status][payload JSON]`, status `ok` or an ``ErrorCode`` whose payload is a ``ServiceError``.
public enum Wire {
    /// The status frame of a successful reply.
    public static let ok = "ok"
    /// The status frame of a successful reply that made something new (see ``Outcome``).
    public static let created = "created"

    /// A request, decoded far enough to route it.
    public struct IncomingRequest: Sendable {
        public let operation: String
        public let metadata: RequestMetadata
        public let payload: [UInt8]
    }

    /// The encoder every process uses: ISO 8601 dates, sorted keys (stable bytes for idempotency checks).
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The matching decoder.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        // RFC 3339 as the document states it: with or without fractional seconds.
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
                return date
            }
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "an RFC 3339 date-time is required")
        }
        return decoder
    }

    /// Encodes a request body.
    public static func encodeRequest(
        operation: String, metadata: RequestMetadata, payload: some Encodable
    ) throws -> [[UInt8]] {
        [Array(operation.utf8), metadata.wireJSON(), try encodePayload(payload)]
    }

    /// Encodes a request body whose payload is JSON already (the gateway forwards a client's body
    /// as it came; the service decodes and checks it).
    public static func encodeRequest(
        operation: String, metadata: RequestMetadata, payloadJSON: [UInt8]
    ) throws -> [[UInt8]] {
        [Array(operation.utf8), metadata.wireJSON(), payloadJSON]
    }

    /// Decodes a request body; a malformed one is an `invalid_argument`.
    public static func decodeRequest(_ frames: [[UInt8]]) throws(ServiceError) -> IncomingRequest {
        guard frames.count == 3 else {
            throw ServiceError(
                .invalidArgument, "a request has 3 body frames (operation, metadata, payload); got \(frames.count)")
        }
        let metadata: RequestMetadata
        do {
            metadata = try RequestMetadata.read(from: frames[1]) ?? decoder.decode(RequestMetadata.self, from: Data(frames[1]))
        } catch {
            throw ServiceError(
                .invalidArgument, "request metadata is not valid JSON of the contract (\(problem(with: error)))")
        }
        return IncomingRequest(
            operation: String(decoding: frames[0], as: UTF8.self), metadata: metadata, payload: frames[2])
    }

    /// Decodes a typed payload; failure is an `invalid_argument` that says what is wrong by the
    /// member's path and the rule broken, never by any part of the input: a decoder's own text
    /// can quote it (a number that does not fit, an enum's unknown raw value, a dictionary's key),
    /// and this message goes to the caller and into the service's log. A ``ServiceError`` thrown
    /// by a type's own decoding is passed on as it is. A ``WireJSONDecodable`` type is read by
    /// ``JSONReader`` first, and by `JSONDecoder` (with these errors) when the reader refuses.
    public static func decodePayload<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(ServiceError) -> T {
        if let readable = T.self as? any WireJSONDecodable.Type, let value = readable.read(from: bytes) as? T {
            return value
        }
        return try decodeWithDecoder(T.self, from: bytes)
    }

    private static func decodeWithDecoder<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(ServiceError) -> T {
        do {
            return try decoder.decode(T.self, from: Data(bytes))
        } catch let error as ServiceError {
            throw error
        } catch let error as DecodingError {
            throw refusal(error)
        } catch {
            throw ServiceError(.invalidArgument, "the payload could not be decoded")
        }
    }

    /// The `invalid_argument` for a payload that did not decode: the member's path and what it
    /// must be, nothing of the input.
    public static func refusal(_ error: DecodingError) -> ServiceError {
        switch error {
        case .keyNotFound(let key, let context):
            let path = fieldPath(context.codingPath + [key])
            return ServiceError(.invalidArgument, "missing field '\(path)'", details: ["field": .string(path)])
        case .typeMismatch(let type, let context):
            guard !context.codingPath.isEmpty else {
                return ServiceError(.invalidArgument, "the payload must be \(kind(of: type))")
            }
            let path = fieldPath(context.codingPath)
            return ServiceError(
                .invalidArgument, "field '\(path)' has the wrong type: \(kind(of: type)) is required",
                details: ["field": .string(path)])
        case .valueNotFound(let type, let context):
            guard !context.codingPath.isEmpty else {
                return ServiceError(.invalidArgument, "the payload must be \(kind(of: type)), not null")
            }
            let path = fieldPath(context.codingPath)
            return ServiceError(
                .invalidArgument, "field '\(path)' must not be null: \(kind(of: type)) is required",
                details: ["field": .string(path)])
        case .dataCorrupted(let context):
            guard !context.codingPath.isEmpty else {
                return ServiceError(.invalidArgument, "malformed JSON: the payload is not JSON of the expected shape")
            }
            let path = fieldPath(context.codingPath)
            return ServiceError(
                .invalidArgument, "field '\(path)' has a value that is not allowed", details: ["field": .string(path)])
        @unknown default:
            return ServiceError(.invalidArgument, "the payload could not be decoded")
        }
    }

    /// A member's path as the services name fields (`postcard.edits[1].type`). Only what the
    /// types declare is written: an array's index as `[n]`, a declared member by its name, and
    /// `*` for a key the decoder read from the input (a dictionary's key, which is the client's
    /// text).
    public static func fieldPath(_ codingPath: [any CodingKey]) -> String {
        var field = ""
        for key in codingPath {
            if fromInput(key) {
                field += field.isEmpty ? "*" : ".*"
            } else if let index = key.intValue {
                field += "[\(index)]"
            } else {
                field += field.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return field
    }

    /// Whether `key` is one the decoder made from the input (a dictionary's key: the decoders'
    /// and the standard library's own key types are named with a leading underscore) rather than
    /// a member a type declares. An array's index (`Index 3` in those types) is a position, not
    /// input; a dictionary's key that reads as an integer is input all the same.
    static func fromInput(_ key: any CodingKey) -> Bool {
        guard String(describing: Swift.type(of: key)).hasPrefix("_") else { return false }
        guard let index = key.intValue else { return true }
        return key.stringValue != "Index \(index)"
    }

    /// What a value of `type` is, for a person: `a number`, `a string`, ...
    static func kind(of type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is Int16.Type, is Int8.Type, is UInt.Type, is UInt64.Type,
            is UInt32.Type, is UInt16.Type, is UInt8.Type:
            "an integer"
        case is Double.Type, is Float.Type, is Decimal.Type: "a number"
        case is String.Type, is Date.Type, is URL.Type, is UUID.Type: "a string"
        default:
            String(describing: type).hasPrefix("Array<") ? "an array" : "an object"
        }
    }

    /// The decoding failure's kind and member, for a log line or a message: nothing of the input.
    static func problem(with error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not decodable" }
        switch error {
        case .keyNotFound(let key, let context): return "missing \(fieldPath(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = fieldPath(context.codingPath)
            return path.isEmpty ? "malformed" : "bad \(path)"
        @unknown default: return "not decodable"
        }
    }

    /// Encodes a successful reply body.
    public static func encodeReply(_ payload: some Encodable) throws -> [[UInt8]] {
        if let outcome = payload as? any OutcomeReply {
            return [Array((outcome.created ? created : ok).utf8), try outcome.bodyPayload()]
        }
        return [Array(ok.utf8), try encodePayload(payload)]
    }

    /// A payload's JSON: written by hand for a ``WireJSONEncodable`` type, else by the encoder.
    public static func encodePayload(_ payload: some Encodable) throws -> [UInt8] {
        if let payload = payload as? any WireJSONEncodable { return try payload.jsonBytes() }
        return Array(try encoder.encode(payload))
    }

    /// One encoder and one decoder for the whole process: their options never change after
    /// this, and both are `Sendable`.
    private static let encoder = makeEncoder()
    private static let decoder = makeDecoder()

    /// Encodes an error reply body.
    public static func encodeError(_ error: ServiceError) -> [[UInt8]] {
        let body =
            (try? encoder.encode(error)) ?? Data(#"{"code":"internal","message":"unencodable error"}"#.utf8)
        return [Array(error.code.rawValue.utf8), Array(body)]
    }

    /// Decodes a reply: the payload on `ok`, the ``ServiceError`` thrown otherwise.
    public static func decodeReply<T: Decodable>(_ type: T.Type, from frames: [[UInt8]]) throws(ServiceError) -> T {
        let payload = try replyPayload(from: frames)
        if let outcome = T.self as? any OutcomeReply.Type {
            do {
                return try outcome.decode(payload: payload, created: isCreated(frames)) as! T
            } catch {
                throw ServiceError(.internal, "reply payload does not match \(T.self): \(error)")
            }
        }
        return try decodeReply(T.self, payload: payload)
    }

    /// Decodes a successful reply's payload; one that does not match is `internal`.
    public static func decodeReply<T: Decodable>(_ type: T.Type, payload: [UInt8]) throws(ServiceError) -> T {
        do {
            return try decoder.decode(T.self, from: Data(payload))
        } catch {
            throw ServiceError(.internal, "reply payload does not match \(T.self): \(error)")
        }
    }

    /// Whether a successful reply's status frame is `created`.
    public static func isCreated(_ frames: [[UInt8]]) -> Bool {
        frames.first.map { $0.elementsEqual(created.utf8) } ?? false
    }

    /// A reply's payload JSON, undecoded, on `ok`; the ``ServiceError`` thrown otherwise.
    public static func replyPayload(from frames: [[UInt8]]) throws(ServiceError) -> [UInt8] {
        guard frames.count >= 2 else {
            throw ServiceError(.internal, "a reply has 2 body frames (status, payload); got \(frames.count)")
        }
        if frames[0].elementsEqual(ok.utf8) || frames[0].elementsEqual(created.utf8) { return frames[1] }
        let status = String(decoding: frames[0], as: UTF8.self)
        if let error = try? decoder.decode(ServiceError.self, from: Data(frames[1])) { throw error }
        throw ServiceError(ErrorCode(rawValue: status), "the service answered \(status) without a readable error body")
    }
}
