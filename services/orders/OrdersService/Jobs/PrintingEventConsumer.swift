import Contract
import Foundation
import Logging
import PrintingContract
import ServiceKit
import Store

/// The consumer `orders.printing`: applies printing's job events to orders, inside the
/// transaction that records each event as handled. The capture, void or refund a move calls
/// for is left to the settler (``PaymentHandler/sweepPayments(limit:)``), which runs after that
/// transaction has committed. Events that no longer apply (a duplicate, a job for a canceled
/// order) are logged and skipped, so that one odd event never blocks the events behind it.
public struct PrintingEventConsumer: Sendable {
    let orders: OrderStore
    let transitions: OrderTransitionHandler
    let events: EventPublisher
    let logger: Logger

    /// Creates the consumer's handler.
    public init(orders: OrderStore, transitions: OrderTransitionHandler, events: EventPublisher, logger: Logger) {
        self.orders = orders
        self.transitions = transitions
        self.events = events
        self.logger = logger
    }

    /// The topics it reads: the job events that move an order on, and the e-card's.
    public static let topics = [
        Printing.Topic.jobAccepted, Printing.Topic.jobPrinted, Printing.Topic.jobMailed, Printing.Topic.jobFailed,
        Printing.Topic.ecardFailed, Printing.Topic.ecardReady,
    ]

    /// Applies one of printing's job events in `tx`.
    public func apply(_ event: StoredEvent, in tx: Transaction) async throws {
        let job = try Wire.makeDecoder().decode(Printing.JobEvent.self, from: event.payload)
        if event.topic == Printing.Topic.ecardReady {
            // The rendered e-card's link, for a phone that sends the card itself; the state stays.
            guard let orderId = UUID(uuidString: job.orderId), let imageUrl = job.imageUrl else { return }
            try await orders.setEcardImage(orderId, url: imageUrl, in: tx)
            return
        }
        let target: OrderState
        switch event.topic {
        case Printing.Topic.jobAccepted: target = .inProduction
        case Printing.Topic.jobPrinted: target = .printed
        case Printing.Topic.jobMailed: target = .mailed
        case Printing.Topic.jobFailed, Printing.Topic.ecardFailed: target = .failed
        default: return
        }
        guard let orderId = UUID(uuidString: job.orderId) else {
            logger.warning("printing event for a malformed order id skipped", metadata: ["event": "\(event.id)"])
            return
        }
        do {
            let stored = try await transitions.move(
                orderId, to: target, reason: job.reason, owner: nil, requestId: event.requestId, in: tx)
            for event in stored { events.announce(event) }
        } catch let error as ServiceError where error.code == .failedPrecondition || error.code == .notFound {
            logger.warning(
                "printing event does not apply to the order; skipped",
                metadata: ["event": "\(event.id)", "topic": "\(event.topic)", "order": "\(orderId)", "why": "\(error)"])
        }
    }
}
