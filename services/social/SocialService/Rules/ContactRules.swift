import CommonContract
import Contract
import Foundation
import OrdersContract
import SocialContract

/// What a contact may hold: a name of 1 to 200 characters, an address with a street, a city
/// and an ISO country code, an e-mail address, an E.164 number. Each refusal names its field.
public enum ContactRules {
    /// The fields after checking; `clear` says which optional ones an empty string cleared.
    public struct Checked: Sendable, Equatable {
        public var name: String?
        public var address: PostalAddress?
        public var email: String??
        public var phone: String??
        public var favourite: Bool?
    }

    public static func check(_ fields: Social.ContactFields, creating: Bool) throws(ServiceError) -> Checked {
        var checked = Checked(favourite: fields.favourite)
        if let name = fields.name?.trimmingCharacters(in: .whitespacesAndNewlines) {
            guard (1...200).contains(name.unicodeScalars.count),
                !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw .invalidArgument("name is 1 to 200 characters, no control characters", field: "name") }
            checked.name = name
        } else if creating {
            throw .invalidArgument("a contact needs a name", field: "name")
        }
        if let address = fields.address { checked.address = try Self.address(address, field: "address") }
        if let email = fields.email?.trimmingCharacters(in: .whitespaces) {
            if email.isEmpty {
                checked.email = .some(nil)
            } else {
                guard DirectoryEntry.looksLikeEmail(email), email.unicodeScalars.count <= 254 else {
                    throw .invalidArgument("email is not an e-mail address", field: "email")
                }
                checked.email = .some(email.lowercased())
            }
        }
        if let phone = fields.phone?.trimmingCharacters(in: .whitespaces) {
            if phone.isEmpty {
                checked.phone = .some(nil)
            } else {
                guard DirectoryEntry.looksLikePhone(phone) else {
                    throw .invalidArgument("phone must be in E.164 form, e.g. +46701234567", field: "phone")
                }
                checked.phone = .some(phone)
            }
        }
        return checked
    }

    /// A postal address checked (street and city 1 to 200 characters, an ISO 3166-1 alpha-2
    /// country, upper-cased); a refusal names `field.line1`, `field.city` or `field.country`.
    public static func address(_ given: PostalAddress, field: String) throws(ServiceError)
        -> PostalAddress
    {
        var address = given
        for (value, part) in [(address.line1, "line1"), (address.city, "city")] {
            guard (1...200).contains(value.trimmingCharacters(in: .whitespaces).unicodeScalars.count) else {
                throw .invalidArgument("\(field).\(part) is 1 to 200 characters", field: "\(field).\(part)")
            }
        }
        for (value, part) in [(address.line2, "line2"), (address.postalCode, "postalCode"), (address.region, "region")] {
            guard (value?.unicodeScalars.count ?? 0) <= 200 else {
                throw .invalidArgument("\(field).\(part) is at most 200 characters", field: "\(field).\(part)")
            }
        }
        address.country = address.country.uppercased()
        guard address.country.count == 2, address.country.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw .invalidArgument("\(field).country is an ISO 3166-1 alpha-2 code", field: "\(field).country")
        }
        return address
    }

    /// A contact as a paid card is matched against it.
    public struct Reachable: Sendable, Equatable {
        public var id: UUID
        public var name: String
        public var address: PostalAddress?
        public var email: String?
        public init(id: UUID, name: String, address: PostalAddress?, email: String?) {
            self.id = id
            self.name = name
            self.address = address
            self.email = email
        }
    }

    /// The cards of one paid order that went to each of `contacts`: a postcard recipient counts
    /// for the contacts with its postal address, an e-card recipient for those with its e-mail
    /// address, whether it was picked from the address book or written in by hand. When several
    /// contacts share the address, the card counts for those of them it names, or for each of
    /// them when it names none (a card to the whole household). Contacts without a card are left out.
    public static func cardsSent(
        postcards: [PostalRecipient], ecards: [Orders.EmailRecipient], to contacts: [Reachable]
    ) -> [UUID: Int] {
        var sent: [UUID: Int] = [:]
        func count(_ reached: [Reachable], named name: String?) {
            let named = reached.filter { sameName($0.name, name) }
            for contact in reached.count > 1 && !named.isEmpty ? named : reached { sent[contact.id, default: 0] += 1 }
        }
        for recipient in postcards {
            count(contacts.filter { $0.address.map { sameAddress($0, recipient.address) } ?? false }, named: recipient.name)
        }
        for recipient in ecards {
            let email = fold(recipient.email)
            guard !email.isEmpty else { continue }
            count(contacts.filter { $0.email.map(fold) == email }, named: recipient.name)
        }
        return sent
    }

    /// Whether two postal addresses are the same place: street, city and country alike ignoring
    /// case, accents and spacing; the second line and postal code too when both give one (a
    /// written-in recipient often leaves them out; postal codes compared without spaces).
    public static func sameAddress(_ a: PostalAddress, _ b: PostalAddress) -> Bool {
        func both(_ x: String?, _ y: String?, _ same: (String, String) -> Bool) -> Bool {
            guard let x, let y, !fold(x).isEmpty, !fold(y).isEmpty else { return true }
            return same(x, y)
        }
        return fold(a.line1) == fold(b.line1) && fold(a.city) == fold(b.city) && fold(a.country) == fold(b.country)
            && both(a.line2, b.line2) { fold($0) == fold($1) }
            && both(a.postalCode, b.postalCode) { fold($0).filter { !$0.isWhitespace } == fold($1).filter { !$0.isWhitespace } }
    }

    static func sameName(_ a: String, _ b: String?) -> Bool {
        guard let b else { return false }
        return fold(a) == fold(b)
    }

    /// Text as matching sees it: trimmed, runs of spaces as one, without case, accents or width.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// What lifts a favourite above every other contact in the `favourites` order's sort key:
    /// more than any time in microseconds since 1970 (2^61 µs is some 73,000 years).
    public static let favouriteLift: Int64 = 1 << 61

    /// A contact's place in the `favourites` order (and its cursor): higher comes first, so every
    /// favourite, newest first, then every other contact, newest first.
    public static func favouritesKey(favourite: Bool, createdMicros: Int64) -> Int64 {
        favourite ? createdMicros + favouriteLift : createdMicros
    }
}
