import Contract
import Foundation
import Logging
import ServiceLifecycle
import Store
import ZeroMQ

/// Publishes events: written to the event log in the caller's transaction (PostgreSQL is the
/// truth), then announced over ZeroMQ after commit (the nudge that makes consumers look now
/// rather than at their next poll).
public struct EventPublisher: Sendable {
    /// The event log events are written to.
    public let log: EventLog
    private let pump: SocketPump
    /// Which service publishes (the `producer` of each event).
    public let producer: ServiceName

    /// A publisher connected to the broker's XSUB endpoint.
    public init(log: EventLog, producer: ServiceName, context: Context, endpoint: String) {
        self.log = log
        self.producer = producer
        self.pump = SocketPump(context: context, type: .pub, name: "events-pub") { socket in
            try socket.setHighWaterMarks(send: 100_000, receive: 1000)
            try socket.connect(endpoint)
        }
    }

    /// The socket loop, to run in the service group.
    public var service: some Service { PumpService(pump: pump) }

    /// Appends an event inside the caller's transaction; call ``announce(_:)`` after commit.
    public func append<Payload: Encodable>(
        topic: String, payload: Payload, requestId: String?, in transaction: Transaction
    ) async throws -> StoredEvent {
        let data = try Wire.makeEncoder().encode(payload)
        let event = NewEvent(
            id: UUID(), topic: topic, producer: producer.rawValue, payload: data, requestId: requestId,
            createdAt: log.clock.now())
        return try await log.append(event, in: transaction)
    }

    /// Appends several events in one statement, in order (see
    /// ``append(topic:payload:requestId:in:)``).
    public func append(
        _ items: [(topic: String, payload: any Encodable)], requestId: String?, in transaction: Transaction
    ) async throws -> [StoredEvent] {
        let encoder = Wire.makeEncoder()
        let now = log.clock.now()
        let events = try items.map { item in
            NewEvent(
                id: UUID(), topic: item.topic, producer: producer.rawValue,
                payload: try item.payload.encoded(with: encoder),
                requestId: requestId, createdAt: now)
        }
        return try await log.append(events, in: transaction)
    }

    /// Tells subscribers that `event` has committed. Losing this nudge loses nothing: consumers
    /// also poll the log.
    public func announce(_ event: StoredEvent) {
        pump.send([Array(event.topic.utf8), Array(event.id.uuidString.utf8)])
    }
}

/// Runs a ``SocketPump`` as a lifecycle service.
struct PumpService: Service {
    let pump: SocketPump

    func run() async throws {
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await pump.run()
        } onCancelOrGracefulShutdown: {
            pump.stop()
        }
    }
}

extension Encodable {
    /// This value as JSON (also through an existential `any Encodable`).
    fileprivate func encoded(with encoder: JSONEncoder) throws -> Data { try encoder.encode(self) }
}
