import Contract
import Foundation
import OrdersContract
import Testing

@testable import OrdersService

/// An order's `postcard.edits` is checked when the order is placed, by the same code printing
/// applies it with.
@Suite("orders: a postcard's edit list is checked at order time")
struct OrderEditsTests {
    func request(edits: String) throws -> Orders.PlaceOrder.Request {
        let values = try JSONDecoder().decode([JSONValue].self, from: Data(edits.utf8))
        return Orders.PlaceOrder.Request(
            kind: "postcard",
            postcard: .init(
                size: "a6", edits: values, greeting: "Hej",
                recipients: [.init(name: "Ann", address: .init(line1: "Storgatan 1", city: "Lund", country: "se"))]),
            currency: "EUR", paymentMethodId: "pm")
    }

    @Test("a valid list passes; a bad one is a 400 naming the edit's field")
    func checked() throws {
        let good = try request(
            edits: #"[{"type": "brightness", "amount": 0.1}, {"type": "filter", "name": "grayscale"}]"#)
        #expect(try OrderContent.of( good).postcard?.edits?.count == 2)
        let bad = try request(edits: #"[{"type": "filter", "name": "grayscale"}, {"type": "contrast", "amount": -4}]"#)
        #expect {
            try OrderContent.of( bad)
        } throws: { error in
            guard let error = error as? ServiceError, case .string(let field) = error.details?["field"] else {
                return false
            }
            return error.code == .invalidArgument && field == "postcard.edits[1].amount"
        }
    }
}
