import CivicContract
import Contract
import Foundation
import ServiceKit
import Store

/// The people endpoints: representatives by jurisdiction, chamber and district, and one with positions.
public struct PeopleHandler: Sendable {
    let people: PeopleStore
    let clock: any WallClock
    /// How far back a bill's last action may be for it to count as active (a year).
    static let activeWindow: TimeInterval = 365 * 86_400

    public init(people: PeopleStore, clock: any WallClock) {
        self.people = people
        self.clock = clock
    }

    /// `list_people`: by name; the cursor is the last name and id. A `chamber` other than
    /// `upper`, `lower` or `legislature` never gets here: the request does not decode (400).
    public func list(_ request: Civic.ListPeople.Request, _ context: OperationContext) async throws
        -> Civic.ListPeople.Reply
    {
        let limit = try Civic.ListPeople.pageSize.limit(request.page.limit)
        let cursor = try request.page.cursor.map { (text) throws(ServiceError) -> (name: String, id: UUID) in
            guard let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8),
                let split = decoded.lastIndex(of: "|"), let id = UUID(uuidString: String(decoded[split...].dropFirst()))
            else { throw ServiceError.invalidArgument("cursor is not one this API gave out", field: "cursor") }
            return (String(decoded[..<split]), id)
        }
        let fetched = try await people.list(
            jurisdiction: try BillQuery.text(request.jurisdiction, field: "jurisdiction", max: 300),
            district: try BillQuery.text(request.district, field: "district", max: 100), chamber: request.chamber,
            after: cursor, limit: limit)
        return Page(fetched: fetched, limit: limit) { Data("\($0.name)|\($0.id)".utf8).base64EncodedString() }
    }

    /// `get_person`.
    public func get(_ request: Civic.GetPerson.Request, _ context: OperationContext) async throws -> Civic.Person {
        let id = try BillQuery.id(request.id, what: "person")
        guard let person = try await people.person(id, activeSince: clock.now().addingTimeInterval(-Self.activeWindow))
        else { throw ServiceError.notFound("no person \(request.id)") }
        return person
    }
}
