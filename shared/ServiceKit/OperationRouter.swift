import Contract
import Foundation
import Logging
import Majordomo
import Store
import Telemetry
import Tracing

/// Maps operation names to typed handlers and turns MDP request bodies into reply bodies,
/// following the wire contract: decode, check the deadline, run, encode the reply or the error.
public struct OperationRouter: Sendable {
    typealias Entry = @Sendable ([UInt8], OperationContext) async throws -> [[UInt8]]

    /// The service this router answers for.
    public let service: ServiceName
    private var entries: [String: Entry] = [:]
    private let logger: Logger
    private let clock: any WallClock
    /// Where answered requests are counted and timed (the admin port's `/metrics`), if anywhere.
    public var metrics: OperationMetrics?

    /// An empty router.
    public init(service: ServiceName, logger: Logger, clock: any WallClock = SystemClock()) {
        self.service = service
        self.logger = logger
        self.clock = clock
    }

    /// The operations registered so far.
    public var operations: [String] { entries.keys.sorted() }

    /// The operations marked with ``markQuick(_:)``.
    public private(set) var quickOperations: Set<String> = []

    /// Marks operations whose handlers answer from memory (a cache, an in-memory index) and
    /// wait for nothing in the usual case. Under `WORKER_HANDLER_START=auto` (the default) they
    /// start on the worker's I/O thread, and one that does not suspend is answered in the same
    /// pass of its loop: two thread hand-offs fewer per request. A handler that does suspend
    /// (a cache miss read from PostgreSQL) carries on on the task pool. Mark only handlers with
    /// little to compute: until they suspend, no other request is read or answered.
    public mutating func markQuick(_ operations: any BusOperation.Type...) {
        for operation in operations {
            precondition(entries[operation.name] != nil, "operation \(operation.name) marked quick before it is registered")
            quickOperations.insert(operation.name)
        }
    }

    /// Registers the handler of operation `Op`.
    public mutating func register<Op: BusOperation>(
        _ operation: Op.Type,
        _ handler: @escaping @Sendable (Op.Request, OperationContext) async throws -> Op.Reply
    ) {
        precondition(entries[Op.name] == nil, "operation \(Op.name) registered twice on \(service)")
        entries[Op.name] = { payload, context in
            let request = try Wire.decodePayload(Op.Request.self, from: payload)
            return try Wire.encodeReply(try await handler(request, context))
        }
    }

    /// Registers the handler of operation `Op` whose reply is JSON already: for a reply that
    /// changes seldom and is asked often (a listing kept encoded), so it is not encoded again for
    /// every request. The bytes must be `Op.Reply` as ``Wire`` encodes it.
    public mutating func registerEncoded<Op: BusOperation>(
        _ operation: Op.Type,
        _ handler: @escaping @Sendable (Op.Request, OperationContext) async throws -> [UInt8]
    ) {
        precondition(entries[Op.name] == nil, "operation \(Op.name) registered twice on \(service)")
        entries[Op.name] = { payload, context in
            let request = try Wire.decodePayload(Op.Request.self, from: payload)
            return [Array(Wire.ok.utf8), try await handler(request, context)]
        }
    }

    /// Registers the handler of operation `Op` whose payload `decode` reads itself, with its own
    /// refusals: for a request checked more strictly than the contract's decoding does (a body
    /// forwarded as the client sent it, refused for a member it must not have, its size), whose
    /// refusals must say nothing of the input (a position).
    public mutating func register<Op: BusOperation>(
        _ operation: Op.Type, decoding decode: @escaping @Sendable ([UInt8]) throws(ServiceError) -> Op.Request,
        _ handler: @escaping @Sendable (Op.Request, OperationContext) async throws -> Op.Reply
    ) {
        precondition(entries[Op.name] == nil, "operation \(Op.name) registered twice on \(service)")
        entries[Op.name] = { payload, context in
            let request = try decode(payload)
            return try Wire.encodeReply(try await handler(request, context))
        }
    }

    /// Handles one request body; never throws: every failure becomes an error reply.
    public func handle(_ frames: [[UInt8]]) async -> [[UInt8]] {
        let request: Wire.IncomingRequest
        do {
            request = try Wire.decodeRequest(frames)
        } catch {
            logger.info("rejected a malformed request", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            return Wire.encodeError(error)
        }
        var logger = self.logger
        logger[metadataKey: "requestId"] = .string(request.metadata.requestId)
        logger[metadataKey: "operation"] = .string(request.operation)
        // The caller's trace on every line of the request, traced here or not (a valid
        // `traceparent` only: it is the caller's text).
        if let traceparent = request.metadata.traceparent, let traceId = TraceParent.traceId(of: traceparent) {
            logger[metadataKey: "traceId"] = .string(traceId)
        }
        guard let entry = entries[request.operation] else {
            return Wire.encodeError(
                ServiceError(
                    .invalidArgument, "service '\(service)' has no operation '\(request.operation)'",
                    details: ["operations": .array(operations.map { .string($0) })]))
        }
        let nowMs = Int64(clock.now().timeIntervalSince1970 * 1000)
        if let deadline = request.metadata.deadline, deadline <= nowMs {
            logger.info("skipped: the caller's deadline had passed")
            return Wire.encodeError(
                ServiceError(.deadlineExceeded, "the deadline passed before the request was handled"))
        }
        let started = ContinuousClock.now
        let (reply, outcome): (reply: [[UInt8]], outcome: String)
        // `health` (probes, readiness) is not traced unless its caller is.
        if Traces.tracer != nil, request.operation != Health.name || request.metadata.traceparent != nil,
            let span = Traces.startSpan(
                "\(service.rawValue) \(request.operation)", kind: .server, parent: request.metadata.traceparent)
        {
            span.attributes["rpc.system"] = "mdp"
            span.attributes["rpc.service"] = service.rawValue
            span.attributes["rpc.method"] = request.operation
            (reply, outcome) = await Traces.within(span) { _ in
                await answer(request, entry: entry, logger: logger, started: started)
            }
            if outcome != "ok" {
                span.attributes["rpc.error_code"] = outcome
                span.setStatus(SpanStatus(code: .error))
            }
        } else {
            (reply, outcome) = await answer(request, entry: entry, logger: logger, started: started)
        }
        metrics?.record(operation: request.operation, outcome: outcome, duration: ContinuousClock.now - started)
        return reply
    }

    /// Runs `entry` and turns what it threw into the error reply; the reply and its outcome
    /// (`ok` or the error code).
    private func answer(
        _ request: Wire.IncomingRequest, entry: Entry, logger: Logger, started: ContinuousClock.Instant
    ) async -> (reply: [[UInt8]], outcome: String) {
        do {
            let reply = try await RequestDeadline.$current.withValue(request.metadata.deadline) {
                try await entry(request.payload, OperationContext(metadata: request.metadata, logger: logger))
            }
            logger.debug("handled", metadata: ["ms": "\((ContinuousClock.now - started).wholeMilliseconds)"])
            return (reply, "ok")
        } catch let error as ServiceError {
            logger.info("refused", metadata: ["code": "\(error.code)", "reason": "\(error.message)"])
            return (Wire.encodeError(error), error.code.rawValue)
        } catch let error where UnstorableText.matches(error) {
            logger.info("refused", metadata: ["code": "invalid_argument", "reason": "text with a NUL character"])
            return (
                Wire.encodeError(ServiceError(.invalidArgument, "text must not contain the NUL character (U+0000)")),
                ErrorCode.invalidArgument.rawValue
            )
        } catch let error where DatabaseOutage.matches(error) {
            // PostgreSQL went away (or is restarting): the request may well succeed in a moment.
            logger.warning("database unavailable", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            return (
                Wire.encodeError(
                    ServiceError(.unavailable, "the database is not reachable just now; try again shortly")),
                ErrorCode.unavailable.rawValue
            )
        } catch {
            logger.error("failed", metadata: ["error": "\(SafeErrorDescription.of(error))"])
            return (Wire.encodeError(.internal(requestId: request.metadata.requestId)), ErrorCode.internal.rawValue)
        }
    }
}
