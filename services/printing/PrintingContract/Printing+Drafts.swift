import CommonContract
import Contract
import Foundation

// MARK: - drafts (saved postcards)

extension Printing {
    /// Whether a draft becomes a printed postcard or an e-card (the order's `kind`).
    public enum DraftKind: String, Codable, Sendable, CaseIterable {
        case postcard, ecard
    }

    /// Someone a draft is for: a contact of the owner's address book (social) by `contactId`, or
    /// written in: a name with a postal address (a postcard) and/or an e-mail address (an e-card).
    /// The order checks that each recipient has what its kind needs.
    public struct DraftRecipient: Codable, Sendable, Hashable {
        public var contactId: String?
        public var name: String?
        public var address: PostalAddress?
        public var email: String?
        public init(
            contactId: String? = nil, name: String? = nil, address: PostalAddress? = nil, email: String? = nil
        ) {
            self.contactId = contactId
            self.name = name
            self.address = address
            self.email = email
        }
    }

    /// What the composer holds: the parts a client writes (create, or replace whole on update).
    public struct DraftContent: Codable, Sendable, Hashable {
        /// `postcard` or `ecard`.
        public var kind: DraftKind
        /// The front image: one of the owner's uploads or a gallery image.
        public var imageId: String?
        /// The front image's edit list (``PostcardEdit``), checked like an order's.
        public var edits: [JSONValue]?
        public var greeting: String?
        /// `A6`, `A5` or `A4` (any case; stored upper case).
        public var size: String?
        public var recipients: [DraftRecipient]?
        public init(
            kind: DraftKind, imageId: String? = nil, edits: [JSONValue]? = nil, greeting: String? = nil,
            size: String? = nil, recipients: [DraftRecipient]? = nil
        ) {
            self.kind = kind
            self.imageId = imageId
            self.edits = edits
            self.greeting = greeting
            self.size = size
            self.recipients = recipients
        }
    }

    /// A saved postcard as its owner reads it.
    public struct Draft: Codable, Sendable, Hashable {
        public var id: String
        public var kind: DraftKind
        public var imageId: String?
        public var edits: [JSONValue]?
        public var greeting: String?
        public var size: String?
        public var recipients: [DraftRecipient]
        /// 1 when created, one more on every change.
        public var revision: Int64
        /// The strong entity tag of this revision, quoted (`"r3"`): the gateway's `ETag`, and what
        /// `If-Match` names to change or delete this revision.
        public var etag: String
        public var createdAt: Date
        public var updatedAt: Date
        public init(
            id: String, kind: DraftKind, imageId: String?, edits: [JSONValue]?, greeting: String?, size: String?,
            recipients: [DraftRecipient], revision: Int64, createdAt: Date, updatedAt: Date
        ) {
            self.id = id
            self.kind = kind
            self.imageId = imageId
            self.edits = edits
            self.greeting = greeting
            self.size = size
            self.recipients = recipients
            self.revision = revision
            self.etag = Self.entityTag(revision: revision)
            self.createdAt = createdAt
            self.updatedAt = updatedAt
        }

        /// The quoted strong entity tag of `revision`.
        public static func entityTag(revision: Int64) -> String { "\"r\(revision)\"" }
    }

    /// What an `If-Match` header names: any revision (`*`), or the revisions of its strong tags
    /// (a weak tag never matches, RFC 9110 §13.1.1).
    public enum DraftPrecondition: Sendable, Hashable {
        case any
        case revisions([Int64])

        /// The answer to a change sent without `If-Match` (428).
        public static let missing = ServiceError(
            .preconditionRequired,
            "send If-Match with the draft's ETag (from GET), so that a change made on another device is not overwritten",
            details: ["field": "If-Match"])

        /// The precondition of the header `value`; nil (a 428) when there is none.
        public init?(ifMatch value: String?) {
            guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
            var revisions: [Int64] = []
            for part in value.split(separator: ",") {
                let tag = part.trimmingCharacters(in: .whitespaces)
                if tag == "*" {
                    self = .any
                    return
                }
                if tag.hasPrefix("\"r"), tag.hasSuffix("\""), tag.count > 3,
                    let revision = Int64(tag.dropFirst(2).dropLast())
                {
                    revisions.append(revision)
                }
            }
            self = .revisions(revisions)
        }
    }

    /// `list_drafts` (signed in): the caller's drafts, newest first, a keyset page at a time.
    public enum ListDrafts: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "list_drafts"
        public static let pageSize = PageSize(default: 20, max: 100)
        public typealias Request = PageRequest
        public typealias Reply = Page<Draft>
    }

    /// `create_draft` (signed in): saves a new draft at revision 1.
    public enum CreateDraft: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "create_draft"
        public typealias Request = DraftContent
        public typealias Reply = Draft
    }

    /// `get_draft` (signed in): one of the caller's drafts; anyone else's is `not_found`. Orders
    /// asks it, as the buyer, when an order names a `draftId`.
    public enum GetDraft: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "get_draft"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public init(id: String) { self.id = id }
        }

        public typealias Reply = Draft
    }

    /// `update_draft` (signed in): replaces a draft's content when `ifMatch` (the `If-Match`
    /// header) names its current revision: none is `precondition_required` (428), another
    /// revision `precondition_failed` (412), checked and written in one SQL statement.
    public enum UpdateDraft: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "update_draft"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public var ifMatch: String?
            public var draft: DraftContent
            public init(id: String, ifMatch: String?, draft: DraftContent) {
                self.id = id
                self.ifMatch = ifMatch
                self.draft = draft
            }
        }

        public typealias Reply = Draft
    }

    /// `delete_draft` (signed in): deletes a draft under the same `If-Match` rule as ``UpdateDraft``.
    public enum DeleteDraft: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "delete_draft"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public var ifMatch: String?
            public init(id: String, ifMatch: String?) {
                self.id = id
                self.ifMatch = ifMatch
            }
        }

        public typealias Reply = Empty
    }
}

// MARK: - the caller's uploads

extension Printing {
    /// `list_images` (signed in): the caller's own uploads, newest first, a keyset page at a time.
    public enum ListImages: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "list_images"
        public static let pageSize = PageSize(default: 50, max: 200)
        public typealias Request = PageRequest
        public typealias Reply = Page<ImageInfo>
    }

    /// `delete_image` (signed in): deletes one of the caller's uploads. An image in use (by a draft,
    /// by an order: orders is asked, then printing's print jobs and e-cards; by the gallery) is kept
    /// and the answer is `conflict` with `details.reason` `image_in_use` and `details.usedBy`
    /// (`draft`, `order` or `gallery`).
    public enum DeleteImage: ServiceOperation {
        public static let service = ServiceName.printing
        public static let name = "delete_image"

        public struct Request: Codable, Sendable, Hashable {
            public var id: String
            public init(id: String) { self.id = id }
        }

        public typealias Reply = Empty
    }
}
