import Foundation
import Testing

@testable import OrdersService

/// The rule of which money movement an order's state still calls for.
@Suite("orders: the payment step an order's state calls for")
struct PaymentStepTests {
    @Test("capture once production started; void before it; refund after capture; nothing once released")
    func steps() {
        func step(_ state: OrderState, captured: Bool = false, released: Bool = false, owed: Bool = false)
            -> PaymentStep?
        {
            PaymentStep.due(state: state, authorized: true, captured: captured, released: released, captureOwed: owed)
        }
        #expect(step(.pendingPayment) == nil && step(.paid) == nil)
        #expect(step(.inProduction) == .capture && step(.printed) == .capture && step(.mailed) == .capture)
        #expect(step(.inProduction, captured: true) == nil)
        #expect(step(.failed) == .void && step(.canceled) == .void)
        #expect(step(.failed, owed: true) == .capture, "failed after production started: capture, then refund")
        #expect(step(.failed, captured: true, owed: true) == .refund && step(.canceled, captured: true) == .refund)
        #expect(step(.failed, captured: true, released: true) == nil && step(.failed, released: true) == nil)
        #expect(
            PaymentStep.due(state: .failed, authorized: false, captured: false, released: false, captureOwed: false)
                == nil)
        let order = UUID()
        #expect(PaymentStep.key("capture", order: order) == "order-\(order.uuidString.lowercased())-capture")
    }
}
