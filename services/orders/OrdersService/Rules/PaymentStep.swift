import Foundation

/// The money movement an order's state calls for and that has not happened yet:
///
/// | state | authorized, not captured | captured |
/// |---|---|---|
/// | `in_production`, `printed`, `mailed` | capture | — |
/// | `failed`, `canceled`, `refunded` | void | refund |
///
/// nothing for `pending_payment` (the payment phases own it), `paid`, an order never
/// authorized, or one whose money was already released (voided or refunded).
public enum PaymentStep: String, Sendable, Hashable, CaseIterable {
    case capture
    case void
    case refund

    /// The step due for an order in `state`.
    public static func due(state: OrderState, authorized: Bool, captured: Bool, released: Bool) -> PaymentStep? {
        guard authorized, !released else { return nil }
        switch state {
        case .inProduction, .printed, .mailed: return captured ? nil : .capture
        case .failed, .canceled, .refunded: return captured ? .refund : .void
        case .pendingPayment, .paid: return nil
        }
    }

    /// The idempotency key of a provider call for `order`: derived from the order alone, so a
    /// retry, a replica or the recovery sweeper sends the same one (and the client's own key
    /// never reaches the provider or a log).
    public static func key(_ operation: String, order: UUID) -> String {
        "order-\(order.uuidString.lowercased())-\(operation)"
    }
}
