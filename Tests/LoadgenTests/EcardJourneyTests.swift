import Foundation
import Testing

@testable import LoadgenKit

@Suite("loadgen: PostcardBuddy's free e-cards by accounts with no card")
struct EcardJourneyTests {
    @Test("a free e-card names no card, one recipient of its own, and is the same on every try")
    func orderBody() throws {
        var emails: Set<String> = []
        for index in 0..<6 {
            let body = AppScenarios.ecardOrderBody(index: index, run: "r")
            #expect(body == AppScenarios.ecardOrderBody(index: index, run: "r"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            #expect(object["kind"] as? String == "ecard")
            #expect(object["paymentMethodId"] == nil, "an account with no card names none")
            let ecard = try #require(object["ecard"] as? [String: Any])
            let recipients = try #require(ecard["recipients"] as? [[String: Any]])
            #expect(recipients.count == 1)
            emails.insert(try #require(recipients.first?["email"] as? String))
        }
        #expect(emails.count == 6)
    }

    @Test("options: mixed sends free e-cards by default, postcard and navup only when asked")
    func options() throws {
        #expect(try Loadgen.appSettings("mixed", [:]).ecardRate > 0)
        #expect(try Loadgen.appSettings("postcard", [:]).ecardRate == 0)
        #expect(try Loadgen.appSettings("postcard", ["ecard-rate": "2.5"]).ecardRate == 2.5)
        #expect(try Loadgen.appSettings("navup", [:]).ecardRate == 0)
        #expect(throws: UsageError.self) { try Loadgen.appSettings("mixed", ["ecard-rate": "lots"]) }
    }
}
