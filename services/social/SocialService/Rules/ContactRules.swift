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
        public var address: Orders.PostalAddress?
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
    public static func address(_ given: Orders.PostalAddress, field: String) throws(ServiceError)
        -> Orders.PostalAddress
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

    /// Whether a postcard recipient is this contact: the same name (ignoring case and spaces
    /// around it) and the same street, postal code, city and country.
    public static func matches(
        _ recipient: Orders.PostalRecipient, name: String, address: Orders.PostalAddress?
    ) -> Bool {
        guard let address else { return false }
        func same(_ a: String?, _ b: String?) -> Bool {
            (a ?? "").trimmingCharacters(in: .whitespaces).lowercased()
                == (b ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        }
        let other = recipient.address
        return same(recipient.name, name) && same(other.line1, address.line1) && same(other.city, address.city)
            && same(other.postalCode, address.postalCode) && same(other.country, address.country)
    }
}
