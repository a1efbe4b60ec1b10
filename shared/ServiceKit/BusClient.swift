import Contract
import Foundation
import Majordomo
import Telemetry
import Tracing

/// Typed calls to other services over the broker, in the wire contract.
public struct BusClient: Sendable {
    /// The MDP client underneath (run it in the process's service group).
    public let client: any MajordomoRequester
    /// The deadline used when a call does not give one.
    public let defaultTimeout: Duration

    /// Wraps an MDP client.
    public init(client: any MajordomoRequester, defaultTimeout: Duration = .seconds(10)) {
        self.client = client
        self.defaultTimeout = defaultTimeout
    }

    /// Calls `Op` on its own service.
    public func call<Op: ServiceOperation>(
        _ operation: Op.Type, _ request: Op.Request, metadata: RequestMetadata, timeout: Duration? = nil
    ) async throws(ServiceError) -> Op.Reply {
        try await call(operation, on: Op.service, request, metadata: metadata, timeout: timeout)
    }

    /// Calls `Op` on `service`; transport failures become `unavailable` or `deadline_exceeded`.
    public func call<Op: BusOperation>(
        _ operation: Op.Type, on service: ServiceName, _ request: Op.Request, metadata: RequestMetadata,
        timeout: Duration? = nil
    ) async throws(ServiceError) -> Op.Reply {
        let payload: [UInt8]
        do {
            payload = Array(try Wire.makeEncoder().encode(request))
        } catch {
            throw ServiceError(.internal, "could not encode \(Op.name) request: \(error)")
        }
        let reply = try await frames(Op.name, on: service, payloadJSON: payload, metadata: metadata, timeout: timeout)
        return try Wire.decodeReply(Op.Reply.self, from: reply)
    }

    /// Calls `operation` on `service` with a payload that is JSON already, and answers the
    /// reply's payload JSON undecoded (the gateway forwards both as they are); an error reply is
    /// thrown as its ``ServiceError``.
    public func call(
        _ operation: String, on service: ServiceName, payloadJSON: [UInt8], metadata: RequestMetadata,
        timeout: Duration? = nil
    ) async throws(ServiceError) -> [UInt8] {
        try Wire.replyPayload(
            from: try await frames(operation, on: service, payloadJSON: payloadJSON, metadata: metadata, timeout: timeout))
    }

    /// Like ``call(_:on:payloadJSON:metadata:timeout:)``, and whether the service answered that
    /// it made something new (an ``Outcome``'s `created`).
    public func reply(
        _ operation: String, on service: ServiceName, payloadJSON: [UInt8], metadata: RequestMetadata,
        timeout: Duration? = nil
    ) async throws(ServiceError) -> (payload: [UInt8], created: Bool) {
        let frames = try await frames(operation, on: service, payloadJSON: payloadJSON, metadata: metadata, timeout: timeout)
        return (try Wire.replyPayload(from: frames), Wire.isCreated(frames))
    }

    /// A call's reply frames (status, payload), within a span when there is a trace.
    private func frames(
        _ operation: String, on service: ServiceName, payloadJSON: [UInt8], metadata: RequestMetadata,
        timeout: Duration?
    ) async throws(ServiceError) -> [[UInt8]] {
        // A span only within a trace (a request's, an event's): a call made on no one's behalf
        // (readiness asking `health`) starts none.
        guard Traces.tracer != nil, Traces.inTrace,
            let span = Traces.startSpan("bus \(service.rawValue) \(operation)", kind: .client)
        else {
            return try await send(operation, on: service, payloadJSON: payloadJSON, metadata: metadata, timeout: timeout)
        }
        span.attributes["rpc.system"] = "mdp"
        span.attributes["rpc.service"] = service.rawValue
        span.attributes["rpc.method"] = operation
        // The callee's handler span is a child of this one.
        var metadata = metadata
        metadata.traceparent = Traces.traceparent(of: span)
        return try await Traces.within(span) { _ throws(ServiceError) in
            do throws(ServiceError) {
                return try await send(operation, on: service, payloadJSON: payloadJSON, metadata: metadata, timeout: timeout)
            } catch {
                span.attributes["rpc.error_code"] = error.code.rawValue
                throw error
            }
        }
    }

    /// The call itself, without a span.
    private func send(
        _ operation: String, on service: ServiceName, payloadJSON: [UInt8], metadata: RequestMetadata,
        timeout: Duration?
    ) async throws(ServiceError) -> [[UInt8]] {
        let timeout = timeout ?? defaultTimeout
        var metadata = metadata
        if metadata.deadline == nil {
            metadata.deadline = Int64(Date().timeIntervalSince1970 * 1000) + timeout.wholeMilliseconds
        }
        let body: [[UInt8]]
        do {
            body = try Wire.encodeRequest(operation: operation, metadata: metadata, payloadJSON: payloadJSON)
        } catch {
            throw ServiceError(.internal, "could not encode \(operation) request: \(error)")
        }
        let reply: [[UInt8]]
        do {
            reply = try await client.request(service: service.rawValue, body: body, timeout: timeout)
        } catch let error as MajordomoError {
            switch error.code {
            case .deadlineExceeded:
                throw ServiceError(.deadlineExceeded, "\(service) did not answer \(operation) in time")
            default:
                throw ServiceError(
                    .unavailable, "\(service) is unavailable: \(error.message)",
                    details: ["service": .string(service.rawValue)])
            }
        } catch {
            throw ServiceError(.unavailable, "call to \(service) was cancelled")
        }
        // An error reply is thrown here, inside the call's span.
        _ = try Wire.replyPayload(from: reply)
        return reply
    }

    /// Asks the broker (MMI, RFC 8) whether a live worker serves `service`.
    public func isServed(_ service: String, timeout: Duration = .seconds(2)) async throws(ServiceError) -> Bool {
        do {
            let reply = try await client.request(service: "mmi.service", body: [Array(service.utf8)], timeout: timeout)
            return reply.first == Array("200".utf8)
        } catch let error as MajordomoError where error.code == .deadlineExceeded {
            throw ServiceError(.deadlineExceeded, "the broker did not answer mmi.service")
        } catch {
            throw ServiceError(.unavailable, "the broker is not reachable: \(error)")
        }
    }
}

extension BusClient {
    /// `call` on every one of `services` at once; the answers in the services' order, an error
    /// that is not a `ServiceError` named after the service. A task each, awaited in turn, not a
    /// task group of results: that shape crashed notify in the Swift 6.3 runtime under load.
    public static func askEach<Reply: Sendable>(
        _ services: [ServiceName], _ call: @escaping @Sendable (ServiceName) async throws -> Reply
    ) async -> [(ServiceName, Result<Reply, ServiceError>)] {
        let asks = services.map { service in
            (service, Task { () -> Result<Reply, ServiceError> in
                do {
                    return .success(try await call(service))
                } catch let error as ServiceError {
                    return .failure(error)
                } catch {
                    return .failure(ServiceError(.internal, "\(service) could not be asked"))
                }
            })
        }
        var answers: [(ServiceName, Result<Reply, ServiceError>)] = []
        for (service, ask) in asks { answers.append((service, await ask.value)) }
        return answers
    }
}
