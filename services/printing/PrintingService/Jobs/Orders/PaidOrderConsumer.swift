import Contract
import Foundation
import OrdersContract
import Store

/// Handles `orders.paid` (consumer `printing.orders`): a postcard order becomes a print job, an
/// e-card order an e-card, each with its render attempt, in the transaction that records the
/// event as handled; the renderers are woken once it is accepted.
struct PaidOrderConsumer: Sendable {
    static let topics = [Orders.Topic.paid]

    let printJobs: PrintJobStore
    let ecards: ECardStore
    /// Announces `printing.job_accepted` (the ZeroMQ nudge).
    let announce: @Sendable (StoredEvent) -> Void
    let printJobAccepted: @Sendable () -> Void
    let ecardAccepted: @Sendable () -> Void

    func handle(_ event: StoredEvent, in tx: Transaction) async throws {
        if let accepted = try await printJobs.accept(event, in: tx) {
            announce(accepted)
            printJobAccepted()
        }
        if try await ecards.accept(event, in: tx) { ecardAccepted() }
    }
}
