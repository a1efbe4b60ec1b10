import Foundation

/// The frame contract of DESIGN.md on top of an MDP body.
///
/// Request body: `[operation][metadata JSON][payload JSON]`.
/// Reply body: `[status][payload JSON]`, status `ok` or an ``ErrorCode`` whose payload is a ``ServiceError``.
public enum Wire {
    /// The status frame of a successful reply.
    public static let ok = "ok"

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
        decoder.dateDecodingStrategy = .iso8601
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
            throw ServiceError(.invalidArgument, "request metadata is not valid JSON of the contract: \(error)")
        }
        return IncomingRequest(
            operation: String(decoding: frames[0], as: UTF8.self), metadata: metadata, payload: frames[2])
    }

    /// Decodes a typed payload; failure is an `invalid_argument` that says what is wrong. A
    /// ``WireJSONDecodable`` type is read by ``JSONReader`` first, and by `JSONDecoder` (with its
    /// errors) when the reader refuses.
    public static func decodePayload<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(ServiceError) -> T {
        if let readable = T.self as? any WireJSONDecodable.Type, let value = readable.read(from: bytes) as? T {
            return value
        }
        return try decodeWithDecoder(T.self, from: bytes)
    }

    private static func decodeWithDecoder<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws(ServiceError) -> T {
        do {
            return try decoder.decode(T.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, context) {
            let path = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            throw ServiceError(.invalidArgument, "missing field '\(path)'", details: ["field": .string(path)])
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw ServiceError(
                .invalidArgument, "field '\(path)' has the wrong type: \(context.debugDescription)",
                details: ["field": .string(path)])
        } catch let DecodingError.dataCorrupted(context) {
            throw ServiceError(.invalidArgument, "malformed JSON: \(context.debugDescription)")
        } catch {
            throw ServiceError(.invalidArgument, "malformed payload: \(error)")
        }
    }

    /// Encodes a successful reply body.
    public static func encodeReply(_ payload: some Encodable) throws -> [[UInt8]] {
        [Array(ok.utf8), try encodePayload(payload)]
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
        try decodeReply(T.self, payload: try replyPayload(from: frames))
    }

    /// Decodes a successful reply's payload; one that does not match is `internal`.
    public static func decodeReply<T: Decodable>(_ type: T.Type, payload: [UInt8]) throws(ServiceError) -> T {
        do {
            return try decoder.decode(T.self, from: Data(payload))
        } catch {
            throw ServiceError(.internal, "reply payload does not match \(T.self): \(error)")
        }
    }

    /// A reply's payload JSON, undecoded, on `ok`; the ``ServiceError`` thrown otherwise.
    public static func replyPayload(from frames: [[UInt8]]) throws(ServiceError) -> [UInt8] {
        guard frames.count >= 2 else {
            throw ServiceError(.internal, "a reply has 2 body frames (status, payload); got \(frames.count)")
        }
        if frames[0].elementsEqual(ok.utf8) { return frames[1] }
        let status = String(decoding: frames[0], as: UTF8.self)
        if let error = try? decoder.decode(ServiceError.self, from: Data(frames[1])) { throw error }
        throw ServiceError(ErrorCode(rawValue: status), "the service answered \(status) without a readable error body")
    }
}
