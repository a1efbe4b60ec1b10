import Contract
import Foundation
import ServiceKit
import SocialContract
import Store

/// The address book: every app's contacts (PostcardBuddy's recipients).
public struct AddressBookHandler: Sendable {
    let contacts: ContactStore
    let clock: any WallClock

    public init(contacts: ContactStore, clock: any WallClock) {
        self.contacts = contacts
        self.clock = clock
    }

    /// `list_contacts`.
    public func list(_ request: Social.ListContacts.Request, _ context: OperationContext) async throws
        -> Page<Social.Contact>
    {
        let me = try context.userId()
        let limit = try Social.ListContacts.pageSize.limit(request.limit)
        let q = request.q?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let q, q.unicodeScalars.count > 100 { throw ServiceError.invalidArgument("q is at most 100 characters", field: "q") }
        let order = request.sort ?? .standard
        let rows = try await contacts.list(
            of: me, q: q?.isEmpty == false ? q : nil, order: order, after: try KeysetCursor.parse(request.cursor),
            limit: limit + 1)
        let kept = rows.prefix(limit)
        let next = rows.count > limit ? kept.last.map { KeysetCursor.text(micros: $0.micros, id: $0.id.uuidString) } : nil
        return Page(items: kept.map(\.contact), nextCursor: next)
    }

    /// `add_contact`.
    public func add(_ request: Social.ContactFields, _ context: OperationContext) async throws -> Social.Contact {
        let me = try context.userId()
        return try await contacts.add(try ContactRules.check(request, creating: true), for: me, now: clock.now())
    }

    /// `update_contact`.
    public func update(_ request: Social.UpdateContact.Request, _ context: OperationContext) async throws
        -> Social.Contact
    {
        let me = try context.userId()
        let checked = try ContactRules.check(request.body, creating: false)
        guard let id = UUID(uuidString: request.id),
            let contact = try await contacts.update(id, of: me, checked, now: clock.now())
        else { throw ServiceError.notFound("you have no contact \(request.id)") }
        return contact
    }

    /// `delete_contact`.
    public func delete(_ request: Social.DeleteContact.Request, _ context: OperationContext) async throws -> Empty {
        let me = try context.userId()
        guard let id = UUID(uuidString: request.id), try await contacts.delete(id, of: me) else {
            throw ServiceError.notFound("you have no contact \(request.id)")
        }
        return Empty()
    }

    /// `resolve_contacts`: for services (orders) and admins only, as a client could otherwise
    /// read another user's address book.
    public func resolve(_ request: Social.ResolveContacts.Request, _ context: OperationContext) async throws
        -> Social.ResolveContacts.Reply
    {
        if context.metadata.actor != nil { _ = try context.requireRole(.admin) }
        guard let user = UUID(uuidString: request.userId) else {
            throw ServiceError.invalidArgument("userId must be a UUID", field: "userId")
        }
        guard request.contactIds.count <= Social.ResolveContacts.maxIds else {
            throw ServiceError.invalidArgument(
                "at most \(Social.ResolveContacts.maxIds) contactIds", field: "contactIds")
        }
        let ids = request.contactIds.compactMap(UUID.init(uuidString:))
        guard !ids.isEmpty else { return .init(contacts: []) }
        return .init(contacts: try await contacts.contacts(Array(Set(ids)), of: user))
    }
}
