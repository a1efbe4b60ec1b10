import CommonContract
import Contract
import Foundation
import OrdersContract
import PrintingContract
import ServiceKit

/// Turns an order's `draftId` into the card it names, asking printing (`get_draft`, as the buyer)
/// over the bus before the order is placed, so before any transaction opens. The draft's
/// contacts stay `contactIds`, which ``SocialContactClient`` resolves next, as it does for a card
/// written in the request.
public struct PrintingDraftClient: Sendable {
    let bus: BusClient

    /// Asks printing through `bus`.
    public init(bus: BusClient) { self.bus = bus }

    /// `request` with `postcard` or `ecard` filled from the draft it names; a request without a
    /// `draftId` comes back as it is, without asking. A `draftId` alongside `postcard`, `ecard` or
    /// `gift` is `invalid_argument` (one card per order, and which would win is not guessed), as is
    /// a `kind` other than the draft's or a draft not complete enough to order (a postcard without
    /// a size, a written-in recipient without the address its kind needs). Another buyer's draft,
    /// or none, is `not_found` naming `draftId`.
    public static func resolve(
        _ request: Orders.PlaceOrder.Request, actor: Actor, requestId: String, drafts: PrintingDraftClient?
    ) async throws(ServiceError) -> Orders.PlaceOrder.Request {
        guard let draftId = request.draftId else { return request }
        guard request.postcard == nil, request.ecard == nil, request.gift == nil else {
            throw .invalidArgument(
                "an order from a draft takes its card from the draft: send draftId without postcard, ecard or gift",
                field: "draftId")
        }
        guard UUID(uuidString: draftId) != nil else {
            throw .invalidArgument("draftId is a draft id (a UUID)", field: "draftId")
        }
        guard let drafts else {
            throw ServiceError(.unavailable, "drafts cannot be read: no printing service is configured")
        }
        let draft: Printing.Draft
        do {
            draft = try await drafts.bus.call(
                Printing.GetDraft.self, .init(id: draftId),
                metadata: RequestMetadata(requestId: requestId, actor: actor),
                timeout: .seconds(5))
        } catch  where error.code == .notFound {
            throw ServiceError(.notFound, "no such draft among your saved postcards", details: ["field": "draftId"])
        }
        return try filled(request, from: draft)
    }

    /// `request` with the card of `draft` in it.
    static func filled(_ request: Orders.PlaceOrder.Request, from draft: Printing.Draft) throws(ServiceError)
        -> Orders.PlaceOrder.Request
    {
        guard request.kind == draft.kind.rawValue else {
            throw .invalidArgument("kind is \(draft.kind.rawValue), as the draft is", field: "kind")
        }
        var resolved = request
        let contactIds = draft.recipients.compactMap(\.contactId)
        let written = draft.recipients.enumerated().filter { $0.element.contactId == nil }
        switch draft.kind {
        case .postcard:
            guard let size = draft.size else { throw .invalidArgument("the draft has no size yet", field: "draftId") }
            let recipients = try written.map { index, recipient throws(ServiceError) in
                guard let name = recipient.name, let address = recipient.address else {
                    throw .invalidArgument(
                        "recipient \(index) of the draft has no postal address", field: "draftId.recipients[\(index)]")
                }
                return PostalRecipient(name: name, address: address)
            }
            resolved.postcard = Orders.PostcardDetails(
                size: size, imageId: draft.imageId, edits: draft.edits, greeting: draft.greeting,
                recipients: recipients, contactIds: contactIds.isEmpty ? nil : contactIds)
        case .ecard:
            let recipients = try written.map { index, recipient throws(ServiceError) in
                guard let email = recipient.email else {
                    throw .invalidArgument(
                        "recipient \(index) of the draft has no e-mail address", field: "draftId.recipients[\(index)]")
                }
                return Orders.EmailRecipient(name: recipient.name, email: email)
            }
            resolved.ecard = Orders.EcardDetails(
                imageId: draft.imageId, edits: draft.edits, size: draft.size, greeting: draft.greeting,
                recipients: recipients, contactIds: contactIds.isEmpty ? nil : contactIds)
        }
        return resolved
    }
}
