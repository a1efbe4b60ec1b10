import CommonContract
import Contract

extension Social {
    /// A contact in the caller's address book.
    public struct Contact: Codable, Sendable, Equatable, Hashable {
        public var id: String
        public var name: String
        public var address: PostalAddress?
        public var email: String?
        /// E.164.
        public var phone: String?
        public var favourite: Bool
        /// Cards sent to this contact, postcards and e-cards alike (counted from paid orders,
        /// whether the recipient was picked from the address book or written in by hand).
        public var cardsSent: Int
        public init(
            id: String, name: String, address: PostalAddress?, email: String?, phone: String?,
            favourite: Bool, cardsSent: Int
        ) {
            self.id = id
            self.name = name
            self.address = address
            self.email = email
            self.phone = phone
            self.favourite = favourite
            self.cardsSent = cardsSent
        }
    }

    /// A new contact, or the fields of an edit (a field left out stays; `""` clears e-mail and phone).
    public struct ContactFields: Codable, Sendable, Equatable {
        public var name: String?
        public var address: PostalAddress?
        public var email: String?
        public var phone: String?
        public var favourite: Bool?
        public init(
            name: String? = nil, address: PostalAddress? = nil, email: String? = nil, phone: String? = nil,
            favourite: Bool? = nil
        ) {
            self.name = name
            self.address = address
            self.email = email
            self.phone = phone
            self.favourite = favourite
        }
    }

    /// How a contact list is ordered.
    public enum ContactOrder: String, Codable, Sendable, CaseIterable {
        /// Favourites first, then the rest; newest first within each (the order when none is asked).
        case favourites
        /// Newest first, favourites not lifted.
        case recent
        /// Most cards sent first, favourites not lifted.
        case frequent

        /// The order of a listing that asks for none.
        public static let standard = ContactOrder.favourites
    }

    /// `list_contacts`: the caller's contacts, `q` matching names (similar spellings too), in
    /// `sort` order (``ContactOrder/standard`` when left out).
    public enum ListContacts: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "list_contacts"
        public static let pageSize = PageSize(default: 50, max: 200)
        public struct Request: Codable, Sendable, Equatable {
            public var q: String?
            public var sort: ContactOrder?
            public var limit: Int?
            public var cursor: String?
            public init(q: String? = nil, sort: ContactOrder? = nil, limit: Int? = nil, cursor: String? = nil) {
                self.q = q
                self.sort = sort
                self.limit = limit
                self.cursor = cursor
            }
        }
        public typealias Reply = Page<Contact>
    }

    /// `add_contact`: needs a name.
    public enum AddContact: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "add_contact"
        public typealias Request = ContactFields
        public typealias Reply = Contact
    }

    /// `update_contact`: changes the given fields of one of the caller's contacts.
    public enum UpdateContact: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "update_contact"
        /// The contact's `id` beside its fields, in one flat object as the API sends them.
        public typealias Request = Identified<ContactFields>
        public typealias Reply = Contact
    }

    /// `delete_contact`.
    public enum DeleteContact: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "delete_contact"
        public struct Request: Codable, Sendable, Equatable {
            public var id: String
            public init(id: String) { self.id = id }
        }
        public typealias Reply = Empty
    }
}

extension Social {
    /// `resolve_contacts`: asked by orders (a service call: no actor, or an admin) before it places
    /// a postcard or e-card order that names contacts: those of `contactIds` that are `userId`'s
    /// contacts, in no particular order. An id that is not theirs is simply left out.
    public enum ResolveContacts: ServiceOperation {
        public static let service = ServiceName.social
        public static let name = "resolve_contacts"
        /// The most ids one request may name (an order's recipient limit).
        public static let maxIds = 100
        public struct Request: Codable, Sendable, Equatable {
            public var userId: String
            public var contactIds: [String]
            public init(userId: String, contactIds: [String]) {
                self.userId = userId
                self.contactIds = contactIds
            }
        }
        public struct Reply: Codable, Sendable, Equatable {
            public var contacts: [Contact]
            public init(contacts: [Contact]) { self.contacts = contacts }
        }
    }
}
