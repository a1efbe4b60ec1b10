import Contract
import Foundation
import PrintingContract

/// What a saved postcard may hold. A draft is work in progress, so little is required (a kind);
/// what is there must be usable: a known size, an edit list an order would take, recipients that
/// are either an address-book contact or written in. Whether the draft is complete enough to
/// order (a size, recipients with the address its kind needs) is the order's check.
public enum DraftRules {
    /// Most recipients on one draft.
    public static let maxRecipients = 100
    /// Most characters of a greeting (as an order allows).
    public static let maxGreeting = 2000

    /// `content` checked and normalized (size and countries upper case); `invalid_argument`
    /// naming the first field at fault, e.g. `recipients[2].email`.
    public static func checked(_ content: Printing.DraftContent) throws(ServiceError) -> Printing.DraftContent {
        var content = content
        if let imageId = content.imageId, UUID(uuidString: imageId) == nil {
            throw .invalidArgument("imageId is an image id (a UUID)", field: "imageId")
        }
        content.imageId = content.imageId?.lowercased()
        _ = try PostcardEdit.list(content.edits, field: "edits")
        if let greeting = content.greeting, greeting.count > maxGreeting {
            throw .invalidArgument("greeting is at most \(maxGreeting) characters", field: "greeting")
        }
        if let size = content.size {
            guard let known = CardSize(named: size) else {
                throw .invalidArgument("size is A6, A5 or A4", field: "size")
            }
            content.size = known.rawValue
        }
        let recipients = content.recipients ?? []
        guard recipients.count <= maxRecipients else {
            throw .invalidArgument("at most \(maxRecipients) recipients", field: "recipients")
        }
        content.recipients = try recipients.enumerated().map { index, recipient throws(ServiceError) in
            try checked(recipient, field: "recipients[\(index)]")
        }
        return content
    }

    /// One recipient: a `contactId` alone, or a name with a postal address and/or an e-mail address.
    static func checked(_ recipient: Printing.DraftRecipient, field: String) throws(ServiceError)
        -> Printing.DraftRecipient
    {
        var recipient = recipient
        if let contactId = recipient.contactId {
            guard recipient.name == nil, recipient.address == nil, recipient.email == nil else {
                throw .invalidArgument(
                    "a recipient is a contactId or written in, not both", field: "\(field).contactId")
            }
            guard let uuid = UUID(uuidString: contactId) else {
                throw .invalidArgument("a contact id is a UUID", field: "\(field).contactId")
            }
            recipient.contactId = uuid.uuidString.lowercased()
            return recipient
        }
        try text(recipient.name, field: "\(field).name", max: 200)
        guard recipient.address != nil || recipient.email != nil else {
            throw .invalidArgument("a written-in recipient has an address or an email", field: field)
        }
        if var address = recipient.address {
            try text(address.line1, field: "\(field).address.line1", max: 200)
            try text(address.city, field: "\(field).address.city", max: 200)
            for (value, name) in [
                (address.line2, "line2"), (address.postalCode, "postalCode"), (address.region, "region"),
            ]
            where (value?.count ?? 0) > 200 {
                throw .invalidArgument(
                    "\(field).address.\(name) is at most 200 characters", field: "\(field).address.\(name)")
            }
            address.country = address.country.uppercased()
            guard address.country.count == 2, address.country.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw .invalidArgument("country is an ISO 3166-1 alpha-2 code", field: "\(field).address.country")
            }
            recipient.address = address
        }
        if let email = recipient.email {
            let parts = email.split(separator: "@")
            guard parts.count == 2, parts[1].contains("."), email.count <= 254, !email.contains(where: \.isWhitespace)
            else { throw .invalidArgument("not an e-mail address", field: "\(field).email") }
        }
        return recipient
    }

    static func text(_ value: String?, field: String, max: Int) throws(ServiceError) {
        guard let value, !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, value.count <= max else {
            throw .invalidArgument("\(field) is 1 to \(max) characters", field: field)
        }
    }
}
