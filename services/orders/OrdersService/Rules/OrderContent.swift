import CommonContract
import Contract
import Foundation
import OrdersContract
import PrintingContract

/// What an order holds besides its price: exactly one of the three kinds.
public struct OrderContent: Codable, Sendable, Hashable {
    var postcard: Orders.PostcardDetails?
    var ecard: Orders.EcardDetails?
    var gift: Orders.GiftDetails?

    /// Names shown in the history list.
    var recipientNames: [String] {
        if let postcard { return postcard.recipients.map(\.name) }
        if let ecard { return ecard.recipients.map { $0.name ?? $0.email } }
        if let gift { return [gift.recipientKind == "friend" ? (gift.friendName ?? "a friend") : "self"] }
        return []
    }

    /// The images it puts on a card, with the request field that names each.
    var images: [(id: String, field: String)] {
        var found: [(id: String, field: String)] = []
        if let id = postcard?.imageId { found.append((id, "postcard.imageId")) }
        if let id = ecard?.imageId { found.append((id, "ecard.imageId")) }
        return found
    }

    /// What history search matches: names, addresses and e-mails, lower case.
    var searchText: String {
        var parts: [String] = []
        for recipient in postcard?.recipients ?? [] {
            let address = recipient.address
            parts += [recipient.name, address.line1, address.line2 ?? "", address.city, address.postalCode ?? ""]
            parts += [address.region ?? "", address.country]
        }
        for recipient in ecard?.recipients ?? [] { parts += [recipient.name ?? "", recipient.email] }
        if let gift { parts += [gift.friendName ?? "", gift.item.title] }
        return parts.filter { !$0.isEmpty }.joined(separator: "\n").lowercased()
    }

    /// Checks that the kind matches the details given and every field is usable; normalizes
    /// sizes and country codes to upper case.
    static func of(_ request: Orders.PlaceOrder.Request) throws(ServiceError) -> OrderContent {
        let given = [request.postcard != nil, request.ecard != nil, request.gift != nil].filter { $0 }.count
        switch Orders.OrderKind(rawValue: request.kind) {
        case .postcard:
            guard var postcard = request.postcard, given == 1 else {
                throw .invalidArgument("a postcard order has `postcard` and nothing else", field: "postcard")
            }
            postcard.size = postcard.size.uppercased()
            for index in postcard.recipients.indices {
                let field = "postcard.recipients[\(index)]"
                try text(postcard.recipients[index].name, field: "\(field).name")
                try text(postcard.recipients[index].address.line1, field: "\(field).address.line1")
                try text(postcard.recipients[index].address.city, field: "\(field).address.city")
                postcard.recipients[index].address.country = postcard.recipients[index].address.country.uppercased()
            }
            try text(postcard.greeting ?? "-", field: "postcard.greeting", max: 2000)
            _ = try PostcardEdit.list(postcard.edits, field: "postcard.edits")
            return OrderContent(postcard: postcard)
        case .ecard:
            guard var ecard = request.ecard, given == 1 else {
                throw .invalidArgument("an e-card order has `ecard` and nothing else", field: "ecard")
            }
            if let size = ecard.size {
                guard let known = CardSize(named: size) else {
                    throw .invalidArgument("ecard.size is A6, A5 or A4", field: "ecard.size")
                }
                ecard.size = known.rawValue
            }
            if let imageId = ecard.imageId, UUID(uuidString: imageId) == nil {
                throw .invalidArgument("ecard.imageId is an image id (a UUID)", field: "ecard.imageId")
            }
            if let sender = ecard.senderName { try text(sender, field: "ecard.senderName", max: 100) }
            if let delivery = ecard.delivery {
                guard let known = Orders.EcardDelivery(rawValue: delivery.lowercased()) else {
                    throw .invalidArgument("ecard.delivery is email or device", field: "ecard.delivery")
                }
                ecard.delivery = known.rawValue
            }
            _ = try PostcardEdit.list(ecard.edits, field: "ecard.edits")
            for (index, recipient) in ecard.recipients.enumerated() {
                let parts = recipient.email.split(separator: "@")
                guard parts.count == 2, parts[1].contains("."), recipient.email.count <= 254,
                    !recipient.email.contains(where: \.isWhitespace)
                else {
                    throw .invalidArgument("not an e-mail address", field: "ecard.recipients[\(index)].email")
                }
            }
            try text(ecard.greeting ?? "-", field: "ecard.greeting", max: 2000)
            return OrderContent(ecard: ecard)
        case .gift:
            guard let gift = request.gift, given == 1 else {
                throw .invalidArgument("a gift order has `gift` and nothing else", field: "gift")
            }
            // Checked against the catalogue and the friendship later (social's `check_gift`); until
            // then the item carries no title and no price.
            return OrderContent(
                gift: Orders.GiftDetails(
                    item: Orders.GiftItem(
                        id: gift.itemId, title: "", unitPrice: Money(amount: 0, currency: "EUR"),
                        quantity: gift.quantity),
                    recipientKind: gift.friendUserId == nil ? "self" : "friend", friendUserId: gift.friendUserId,
                    message: gift.message, shippingAddress: gift.shippingAddress))
        case nil:
            throw .invalidArgument("kind is postcard, ecard or gift", field: "kind")
        }
    }

    static func text(_ value: String, field: String, max: Int = 200) throws(ServiceError) {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, value.count <= max else {
            throw .invalidArgument("\(field) is 1 to \(max) characters", field: field)
        }
    }
}
