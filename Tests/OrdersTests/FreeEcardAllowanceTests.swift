import Contract
import Foundation
import Testing

@testable import OrdersService

@Suite("orders: the daily cap on free e-card recipients (rule)")
struct FreeEcardAllowanceTests {
    /// 2026-03-14 13:20:00 UTC.
    static let afternoon = Date(timeIntervalSince1970: 1_773_446_400 + 13 * 3_600 + 20 * 60)

    @Test("the day is the UTC calendar day: midnight belongs to the day it starts")
    func utcDay() {
        let day = FreeEcardAllowance.day(containing: Self.afternoon)
        #expect(day.start == Date(timeIntervalSince1970: 1_773_446_400))
        #expect(day.end == Date(timeIntervalSince1970: 1_773_446_400 + 86_400))
        #expect(FreeEcardAllowance.day(containing: day.end).start == day.end, "00:00:00 starts the next day")
        #expect(FreeEcardAllowance.day(containing: day.end.addingTimeInterval(-0.001)).start == day.start)
        let before1970 = FreeEcardAllowance.day(containing: Date(timeIntervalSince1970: -1))
        #expect(before1970.start == Date(timeIntervalSince1970: -86_400) && before1970.end == .init(timeIntervalSince1970: 0))
    }

    @Test("up to the cap is allowed, with this order's recipients counted; one more is refused until midnight UTC")
    func cap() {
        let allowance = FreeEcardAllowance(recipientsPerDay: 5)
        #expect(allowance.check(sent: 0, recipients: 5, now: Self.afternoon) == .allowed)
        #expect(allowance.check(sent: 3, recipients: 2, now: Self.afternoon) == .allowed)
        let secondsLeft = 10 * 3_600 + 40 * 60
        #expect(allowance.check(sent: 3, recipients: 3, now: Self.afternoon) == .exceeded(sent: 3, retryAfter: secondsLeft))
        #expect(allowance.check(sent: 5, recipients: 1, now: Self.afternoon) == .exceeded(sent: 5, retryAfter: secondsLeft))
        #expect(
            allowance.check(sent: 0, recipients: 6, now: Self.afternoon) == .exceeded(sent: 0, retryAfter: secondsLeft),
            "one e-card to more recipients than a day allows")
        #expect(FreeEcardAllowance().recipientsPerDay == 20, "the default")
    }

    @Test("Retry-After is whole seconds rounded up, at least 1, and counts down to the next UTC midnight")
    func retryAfter() {
        let allowance = FreeEcardAllowance(recipientsPerDay: 1)
        let midnight = FreeEcardAllowance.day(containing: Self.afternoon).end
        #expect(allowance.check(sent: 1, recipients: 1, now: midnight.addingTimeInterval(-0.25)) == .exceeded(sent: 1, retryAfter: 1))
        #expect(allowance.check(sent: 1, recipients: 1, now: midnight.addingTimeInterval(-1.5)) == .exceeded(sent: 1, retryAfter: 2))
        #expect(allowance.check(sent: 1, recipients: 1, now: midnight) == .exceeded(sent: 1, retryAfter: 86_400))
    }

    @Test("the refusal is a 429 in the contract's error shape: reason, field, limit, count and Retry-After")
    func refusal() throws {
        let allowance = FreeEcardAllowance(recipientsPerDay: 20)
        let error = allowance.refusal(sent: 18, recipients: 3, retryAfter: 3_600)
        #expect(error.code == .rateLimited && error.code.httpStatus == 429)
        #expect(error.retryAfterSeconds == 3_600)
        #expect(error.details?["reason"] == .string(FreeEcardAllowance.reason))
        #expect(error.details?["field"] == .string("ecard.recipients"))
        #expect(error.details?["limit"] == .number(20) && error.details?["sentToday"] == .number(18))
        #expect(error.details?["requested"] == .number(3))
        #expect(error.message.contains("20 recipients a day") && error.message.contains("2 left today"))
        let tooMany = allowance.refusal(sent: 0, recipients: 30, retryAfter: 60)
        #expect(tooMany.message.contains("this one has 30"), "\(tooMany.message)")
    }
}
