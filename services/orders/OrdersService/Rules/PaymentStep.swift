import Foundation

/// The money movement an order's state calls for and that has not happened yet:
///
/// | order | step |
/// |---|---|
/// | production started (`capture_owed`: it reached `in_production`), not captured | capture |
/// | `failed`, `canceled` or `refunded`, captured | refund |
/// | `failed` or `canceled`, never in production, not captured | void |
///
/// nothing for `pending_payment` (the payment phases own it), `paid`, an order never
/// authorized, or one whose money was already released (voided or refunded). A job that failed
/// after production started is captured, then refunded (`failed` → `refunded`), as printing
/// saw it; one that failed before is voided.
public enum PaymentStep: String, Sendable, Hashable, CaseIterable {
    case capture
    case void
    case refund

    /// The step due for an order in `state`.
    public static func due(
        state: OrderState, authorized: Bool, captured: Bool, released: Bool, captureOwed: Bool
    ) -> PaymentStep? {
        guard authorized, !released else { return nil }
        let owed = captureOwed || [.inProduction, .printed, .mailed].contains(state)
        switch state {
        case .pendingPayment, .paid: return nil
        case .inProduction, .printed, .mailed: return captured ? nil : .capture
        case .failed, .canceled, .refunded:
            if captured { return .refund }
            return owed ? .capture : .void
        }
    }

    /// The idempotency key of a provider call for `order`: derived from the order alone, so a
    /// retry, a replica or the recovery sweeper sends the same one (and the client's own key
    /// never reaches the provider or a log).
    public static func key(_ operation: String, order: UUID) -> String {
        "order-\(order.uuidString.lowercased())-\(operation)"
    }
}
