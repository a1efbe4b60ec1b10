import CommonContract
import Contract
import Foundation
import OrdersContract
import Testing

@testable import OrdersService

/// Cards and the sandbox provider: Luhn, expiry, brands and the test cards.
@Suite("orders: cards and the sandbox provider")
struct CardTests {
    let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11

    @Test("Luhn and brands")
    func luhn() {
        #expect(CardDetails.luhn("4242424242424242"))
        #expect(!CardDetails.luhn("4242424242424241"))
        #expect(CardDetails.brand("4242424242424242") == "visa")
        #expect(CardDetails.brand("5555555555554444") == "mastercard")
        #expect(CardDetails.brand("378282246310005") == "amex")
        #expect(CardDetails.brand("6011111111111117") == "discover")
    }

    func reason(_ number: String, month: Int = 12, year: Int = 2030, cvc: String = "123") async -> String? {
        do {
            let card = try await SandboxPaymentClient().tokenize(
                CardDetails(number: number, expMonth: month, expYear: year, cvc: cvc), now: now)
            _ = try await SandboxPaymentClient().authorize(
                token: card.token, amount: Money(amount: 100, currency: "EUR"), idempotencyKey: "k")
            return "ok"
        } catch let declined as PaymentDeclined {
            return declined.reason
        } catch let error as ServiceError {
            guard case .string(let field) = error.details?["field"] else { return "invalid" }
            return "invalid:\(field)"
        } catch {
            return "\(error)"
        }
    }

    @Test("each test card behaves like a processor's test mode")
    func testCards() async {
        #expect(await reason("4242424242424242") == "ok")
        #expect(await reason("4242 4242 4242 4242") == "ok")
        #expect(await reason("4000000000000002") == "card_declined")
        #expect(await reason("4000000000009995") == "insufficient_funds")
        #expect(await reason("4000000000000069") == "expired_card")
        #expect(await reason("4000000000000119") == "processing_error")
        #expect(await reason("4242424242424241") == "invalid:number")
        #expect(await reason("4242") == "invalid:number")
        #expect(await reason("4242424242424242", month: 13) == "invalid:expMonth")
        #expect(await reason("4242424242424242", month: 10, year: 2026) == "invalid:expYear", "expired last month")
        #expect(await reason("4242424242424242", month: 11, year: 2026) == "ok", "valid to the end of the month")
        #expect(await reason("4242424242424242", cvc: "12") == "invalid:cvc")
        #expect(await reason("378282246310005", cvc: "1234") == "ok")
    }

    @Test("a token keeps brand, last four and expiry, never the number; the description hides it")
    func token() async throws {
        let details = CardDetails(number: "4242424242424242", expMonth: 12, expYear: 2030, cvc: "123")
        let card = try await SandboxPaymentClient().tokenize(details, now: now)
        #expect(card.brand == "visa" && card.last4 == "4242")
        #expect(!card.token.contains("4242424242424242"))
        #expect(!"\(details)".contains("4242424242424242"))
        #expect(
            !"\(Orders.AddPaymentMethod.Request(number: "4242424242424242", expMonth: 1, expYear: 2030, cvc: "1"))"
                .contains("4242424242424242"))
    }

    @Test("provider ids follow the idempotency key, so a retry never moves money twice")
    func repeatable() async throws {
        let provider = SandboxPaymentClient()
        let card = try await provider.tokenize(
            CardDetails(number: "4242424242424242", expMonth: 12, expYear: 2030, cvc: "123"), now: now)
        let money = Money(amount: 100, currency: "EUR")
        let first = try await provider.authorize(token: card.token, amount: money, idempotencyKey: "a")
        #expect(try await provider.authorize(token: card.token, amount: money, idempotencyKey: "a") == first)
        #expect(try await provider.authorize(token: card.token, amount: money, idempotencyKey: "b") != first)
    }
}
