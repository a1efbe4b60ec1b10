import Contract
import Foundation
import OrdersContract
import ServiceKit
import SocialContract

/// Turns the address-book contacts a postcard or e-card order names (`contactIds`) into inline
/// recipients, asking social (`resolve_contacts`, as a service) over the bus before the order is
/// placed, so before any transaction opens.
public struct SocialContactClient: Sendable {
    let bus: BusClient

    /// Asks social through `bus`.
    public init(bus: BusClient) { self.bus = bus }

    /// `request` with the contacts it names added after its inline recipients (postal address
    /// for a postcard, e-mail address for an e-card) and `contactIds` removed. An id that is not
    /// a UUID, or names a contact without the address the card needs, is `invalid_argument`; one
    /// that is not the buyer's contact `not_found`; each names its field
    /// (`postcard.contactIds[2]`). A request without contacts comes back as it is, without asking;
    /// with contacts and no `contacts` to ask, `unavailable`.
    public static func resolve(
        _ request: Orders.PlaceOrder.Request, buyer: UUID, requestId: String, contacts: SocialContactClient?
    ) async throws -> Orders.PlaceOrder.Request {
        var resolved = request
        if let ids = request.postcard?.contactIds {
            let found = try await lookUp(ids, field: "postcard.contactIds", buyer: buyer, requestId: requestId, contacts)
            for (index, contact) in found.enumerated() {
                guard let address = contact.address else {
                    throw ServiceError.invalidArgument(
                        "this contact has no postal address", field: "postcard.contactIds[\(index)]")
                }
                resolved.postcard?.recipients.append(.init(name: contact.name, address: address))
            }
            resolved.postcard?.contactIds = nil
        }
        if let ids = request.ecard?.contactIds {
            let found = try await lookUp(ids, field: "ecard.contactIds", buyer: buyer, requestId: requestId, contacts)
            for (index, contact) in found.enumerated() {
                guard let email = contact.email else {
                    throw ServiceError.invalidArgument(
                        "this contact has no e-mail address", field: "ecard.contactIds[\(index)]")
                }
                resolved.ecard?.recipients.append(.init(name: contact.name, email: email))
            }
            resolved.ecard?.contactIds = nil
        }
        return resolved
    }

    /// The buyer's contacts `ids`, in the order named.
    static func lookUp(
        _ ids: [String], field: String, buyer: UUID, requestId: String, _ contacts: SocialContactClient?
    ) async throws -> [Social.Contact] {
        guard !ids.isEmpty else { return [] }
        guard ids.count <= Social.ResolveContacts.maxIds else {
            throw ServiceError.invalidArgument("at most \(Social.ResolveContacts.maxIds) contacts", field: field)
        }
        var wanted: [UUID] = []
        for (index, id) in ids.enumerated() {
            guard let uuid = UUID(uuidString: id) else {
                throw ServiceError.invalidArgument("a contact id is a UUID", field: "\(field)[\(index)]")
            }
            wanted.append(uuid)
        }
        guard let contacts else {
            throw ServiceError(.unavailable, "contacts cannot be looked up: no social service is configured")
        }
        let reply = try await contacts.bus.call(
            Social.ResolveContacts.self,
            .init(userId: buyer.uuidString.lowercased(), contactIds: wanted.map { $0.uuidString.lowercased() }),
            metadata: RequestMetadata(requestId: requestId), timeout: .seconds(5))
        var byId: [UUID: Social.Contact] = [:]
        for contact in reply.contacts { if let id = UUID(uuidString: contact.id) { byId[id] = contact } }
        return try wanted.enumerated().map { index, id in
            guard let contact = byId[id] else {
                throw ServiceError(
                    .notFound, "you have no contact \(ids[index])", details: ["field": .string("\(field)[\(index)]")])
            }
            return contact
        }
    }
}
