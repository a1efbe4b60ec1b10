import Contract
import Foundation
import OrdersContract
import PrintingContract
import Testing

@testable import OrdersService

/// How an order naming a `draftId` is built from the draft printing returns (no I/O: the draft
/// is given), and what is refused before printing is asked.
@Suite("orders: an order from a saved postcard")
struct OrderFromDraftTests {
    static let contact = UUID().uuidString.lowercased()

    static func draft(kind: Printing.DraftKind, size: String? = "A5") -> Printing.Draft {
        Printing.Draft(
            id: UUID().uuidString.lowercased(), kind: kind, imageId: UUID().uuidString.lowercased(),
            edits: [.object(["type": "filter", "name": "warm"])], greeting: "Hej", size: size,
            recipients: [
                .init(
                    name: "Ann", address: .init(line1: "Storgatan 1", city: "Lund", country: "SE"),
                    email: "ann@example.org"),
                .init(contactId: contact),
            ],
            revision: 4, createdAt: Date(), updatedAt: Date())
    }

    static func request(kind: String, draftId: String = UUID().uuidString) -> Orders.PlaceOrder.Request {
        Orders.PlaceOrder.Request(kind: kind, currency: "EUR", paymentMethodId: UUID().uuidString, draftId: draftId)
    }

    @Test(
        "a postcard draft fills `postcard`: image, edits, greeting, size, written-in recipients, contacts as contactIds"
    )
    func postcard() throws {
        let draft = Self.draft(kind: .postcard)
        let filled = try PrintingDraftClient.filled(Self.request(kind: "postcard"), from: draft)
        let postcard = try #require(filled.postcard)
        #expect(filled.ecard == nil && postcard.size == "A5" && postcard.imageId == draft.imageId)
        #expect(postcard.edits == draft.edits && postcard.greeting == "Hej")
        #expect(postcard.recipients.map(\.name) == ["Ann"] && postcard.contactIds == [Self.contact])
    }

    @Test("an e-card draft fills `ecard` with the e-mail addresses")
    func ecard() throws {
        let filled = try PrintingDraftClient.filled(Self.request(kind: "ecard"), from: Self.draft(kind: .ecard))
        #expect(filled.ecard?.recipients.map(\.email) == ["ann@example.org"] && filled.postcard == nil)
        #expect(filled.ecard?.contactIds == [Self.contact])
    }

    @Test("refused: another kind than the draft's, a postcard draft without a size, inline fields beside draftId")
    func refusals() async throws {
        #expect {
            _ = try PrintingDraftClient.filled(Self.request(kind: "ecard"), from: Self.draft(kind: .postcard))
        } throws: { ($0 as? ServiceError)?.details?["field"] == "kind" }
        #expect {
            _ = try PrintingDraftClient.filled(Self.request(kind: "postcard"), from: Self.draft(kind: .postcard, size: nil))
        } throws: { ($0 as? ServiceError)?.details?["field"] == "draftId" }
        var both = Self.request(kind: "postcard")
        both.postcard = Orders.PostcardDetails(size: "A6", recipients: [])
        await #expect {
            _ = try await PrintingDraftClient.resolve(
                both, actor: Actor(userId: UUID().uuidString, roles: ["user"]), requestId: "r", drafts: nil)
        } throws: {
            ($0 as? ServiceError)?.code == .invalidArgument && ($0 as? ServiceError)?.details?["field"] == "draftId"
        }
        let plain = Orders.PlaceOrder.Request(kind: "postcard", currency: "EUR", paymentMethodId: "x")
        #expect(
            try await PrintingDraftClient.resolve(
                plain, actor: Actor(userId: UUID().uuidString, roles: ["user"]), requestId: "r", drafts: nil) == plain)
    }
}
