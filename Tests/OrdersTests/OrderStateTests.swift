import Contract
import Testing

@testable import OrdersService

/// The order state machine, move by move.
@Suite("orders: state machine")
struct OrderStateTests {
    static let allowed: Set<String> = [
        "pending_payment>paid", "pending_payment>failed", "pending_payment>canceled",
        "paid>in_production", "paid>failed", "paid>canceled",
        "in_production>printed", "in_production>failed",
        "printed>mailed", "printed>failed",
        "failed>refunded",
    ]

    @Test("exactly the documented moves are allowed; every other is a 422 naming both states")
    func everyPair() {
        for from in OrderState.allCases {
            for to in OrderState.allCases {
                let name = "\(from.rawValue)>\(to.rawValue)"
                #expect(from.canMove(to: to) == Self.allowed.contains(name), "\(name)")
                do {
                    _ = try from.move(to: to)
                    #expect(Self.allowed.contains(name))
                } catch {
                    #expect(error.code == .failedPrecondition && error.code.httpStatus == 422)
                    #expect(error.message.contains(from.rawValue) && error.message.contains(to.rawValue))
                }
            }
        }
    }

    @Test("cancel is allowed until production starts")
    func cancel() {
        #expect(OrderState.pendingPayment.canMove(to: .canceled))
        #expect(OrderState.paid.canMove(to: .canceled))
        for state in [OrderState.inProduction, .printed, .mailed, .failed, .refunded, .canceled] {
            #expect(!state.canMove(to: .canceled))
        }
    }
}
