import Contract
import Foundation
import Logging
import Majordomo
import ServiceKit

/// What the gateway knows about the HTTP request being handled, available to every handler of
/// that request through a task-local (set by ``RequestIDMiddleware``).
public struct RequestScope: Sendable {
    /// The request id: the client's `X-Request-Id` when it sent a sane one, else a new UUID.
    public let requestId: String
    /// A logger whose lines carry the request id (and the trace's id, when there is one); made
    /// when asked for, since most requests log nothing of their own.
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "requestId"] = .string(requestId)
        if let traceId { logger[metadataKey: "traceId"] = .string(traceId) }
        return logger
    }
    /// The process's logger, before the request's fields.
    private let baseLogger: Logger
    /// The id of the trace the request is part of (its span's, or the client's `traceparent`'s).
    public let traceId: String?
    /// The authenticated caller (set by the authentication middleware from a Bearer token).
    public var actor: Actor?
    /// The W3C `traceparent` the calls made for this request carry: the gateway's request span's
    /// with tracing on; with it off, the client's own when it sent a valid one.
    public var traceparent: String?

    /// A scope.
    public init(
        requestId: String, logger: Logger, traceId: String? = nil, actor: Actor? = nil, traceparent: String? = nil
    ) {
        self.requestId = requestId
        self.baseLogger = logger
        self.traceId = traceId
        self.actor = actor
        self.traceparent = traceparent
    }

    /// The caller, or `unauthenticated`.
    public func requireActor() throws(ServiceError) -> Actor {
        guard let actor else {
            throw ServiceError(.unauthenticated, "sign in first: send 'Authorization: Bearer <access token>'")
        }
        return actor
    }

    @TaskLocal public static var current: RequestScope?

    /// The wire metadata for a call made on behalf of this request.
    public func metadata(deadline: Duration, idempotencyKey: String? = nil) -> RequestMetadata {
        RequestMetadata(
            requestId: requestId, traceparent: traceparent, actor: actor,
            deadline: Int64(Date().timeIntervalSince1970 * 1000) + deadline.wholeMilliseconds,
            idempotencyKey: idempotencyKey)
    }

    /// A new request id: a random (version 4) UUID in lower case.
    ///
    /// Made from the kernel's random bytes (`/dev/urandom`, read in batches by
    /// ``RandomBytePool``); Foundation's `UUID()` opens and reads `/dev/urandom` each time, which
    /// the gateway paid on every request.
    static func newRequestId() -> String {
        let random = RandomBytePool.shared.next16()
        var bytes = withUnsafeBytes(of: random) { Array($0) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A usable request id from a client header: 1-128 characters of `[A-Za-z0-9._:-]`.
    static func sanitize(_ header: String?) -> String? {
        guard let header, !header.isEmpty, header.count <= 128,
            header.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._:-".unicodeScalars.contains($0))
            })
        else { return nil }
        return header
    }
}
