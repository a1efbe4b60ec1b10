import Contract

/// Where an order is in its life, and which moves are allowed:
///
/// ```
/// pending_payment → paid → in_production → printed → mailed
///        │            │          │             │
///        ├→ failed    ├→ failed  └→ failed ────┴→ failed → refunded
///        └→ canceled  └→ canceled
/// ```
///
/// An order can be canceled until production starts. A failure before capture voids the hold;
/// a failure after capture (in production or later) refunds, which is the `refunded` state.
public enum OrderState: String, Sendable, Hashable, CaseIterable, Codable {
    case pendingPayment = "pending_payment"
    case paid
    case inProduction = "in_production"
    case printed
    case mailed
    case canceled
    case failed
    case refunded

    /// The states this one may move to.
    public var next: Set<OrderState> {
        switch self {
        case .pendingPayment: [.paid, .failed, .canceled]
        case .paid: [.inProduction, .failed, .canceled]
        case .inProduction: [.printed, .failed]
        case .printed: [.mailed, .failed]
        case .failed: [.refunded]
        case .mailed, .canceled, .refunded: []
        }
    }

    /// Whether the order may move to `state`.
    public func canMove(to state: OrderState) -> Bool { next.contains(state) }

    /// The move to `state`, or `failed_precondition` (HTTP 422) naming both states.
    public func move(to state: OrderState) throws(ServiceError) -> OrderState {
        guard canMove(to: state) else {
            throw ServiceError(
                .failedPrecondition, "an order that is \(rawValue) cannot become \(state.rawValue)",
                details: ["state": .string(rawValue), "requested": .string(state.rawValue)])
        }
        return state
    }
}
