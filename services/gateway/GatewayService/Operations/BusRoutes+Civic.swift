import CivicContract
import Contract
import HTTPTypes
import ServiceKit

extension BusRoute {
    /// PolitiMap's public reads (civic): bills, highlights, topics, jurisdictions, people,
    /// meetings and the outlines. No account needed; each answer is civic's reply as it came,
    /// tagged with the SHA-256 of its bytes (`ETag`, and 304 for a current `If-None-Match`) and
    /// `Cache-Control: public, max-age=60`. Civic checks every parameter (400 naming it); the
    /// gateway only reads the query's text (`limit` must be an integer, `chamber` one of its
    /// values, a parameter given once).
    static let civic: [BusRoute] = [
        .building(
            "listCivicJurisdictions", .get, "/v1/civic/jurisdictions", Civic.ListJurisdictions.self, access: .anyone
        ) { _ in Empty() }.tagged(.content, cacheControl: EntityTag.publicCacheControl),
        .building("listBills", .get, "/v1/civic/bills", Civic.ListBills.self, access: .anyone) {
            input throws(ServiceError) in
            .init(
                level: try input.string("level"), jurisdiction: try input.string("jurisdiction"),
                status: try input.string("status"), subject: try input.string("subject"),
                topic: try input.string("topic"), q: try input.string("q"),
                updatedSince: try input.string("updatedSince"), sort: try input.string("sort"),
                page: try page(input))
        }.tagged(.content, cacheControl: EntityTag.publicCacheControl),
        .building("getBill", .get, "/v1/civic/bills/{id}", Civic.GetBill.self, access: .anyone) { input in
            .init(id: input.path("id"))
        }.tagged(.content, cacheControl: EntityTag.publicCacheControl),
        .building("highlightedBills", .get, "/v1/civic/highlights", Civic.HighlightedBills.self, access: .anyone) {
            input throws(ServiceError) in
            .init(level: try input.string("level"))
        }.tagged(.content, cacheControl: EntityTag.publicCacheControl),
        .building("listCivicTopics", .get, "/v1/civic/topics", Civic.ListTopics.self, access: .anyone) { _ in
            Empty()
        }.tagged(.content, cacheControl: EntityTag.publicCacheControl),
        .building("listCivicPeople", .get, "/v1/civic/people", Civic.ListPeople.self, access: .anyone) {
            input throws(ServiceError) in
            .init(
                jurisdiction: try input.string("jurisdiction"), district: try input.string("district"),
                chamber: try chamber(input), page: try page(input))
        }.tagged(.content, cacheControl: EntityTag.publicCacheControl),
        .building("getCivicPerson", .get, "/v1/civic/people/{id}", Civic.GetPerson.self, access: .anyone) { input in
            .init(id: input.path("id"))
        }.tagged(.content, cacheControl: EntityTag.publicCacheControl),
        .building("listMeetings", .get, "/v1/civic/meetings", Civic.ListMeetings.self, access: .anyone) {
            input throws(ServiceError) in
            .init(
                jurisdiction: try input.string("jurisdiction"), from: try input.string("from"),
                to: try input.string("to"), page: try page(input))
        }.tagged(.content, cacheControl: EntityTag.publicCacheControl),
        // The next meeting changes as time passes: cacheable for a minute, not tagged.
        .building("nextMeeting", .get, "/v1/civic/meetings/next", Civic.NextMeeting.self, access: .anyone) {
            input throws(ServiceError) in
            guard let body = try input.string("body") else {
                throw ServiceError.invalidArgument(
                    "body is required: the body's name, e.g. San Luis Obispo City Council", field: "body")
            }
            return .init(body: body)
        }.cached(EntityTag.publicCacheControl),
        .building("civicBoundaries", .get, "/v1/civic/boundaries", Civic.Boundaries.self, access: .anyone) { _ in
            Empty()
        }.tagged(.content, cacheControl: EntityTag.publicCacheControl),
    ]

    /// Editors' stated positions: civic checks the civic_editor role and every field.
    static let civicEditors: [BusRoute] = [
        .rawBody(
            "setCivicStatedPosition", .put, "/v1/admin/civic/people/{personId}/positions/{billId}",
            Civic.SetStatedPosition.self, access: .signedIn
        ) { input throws(ServiceError) in
            let body = try input.decodedBody(StatedPositionBody.self)
            return .init(
                personId: input.path("personId"), billId: input.path("billId"), position: body.position,
                statedOn: body.statedOn, sourceUrl: body.sourceUrl, checkedOn: body.checkedOn)
        },
        .building(
            "deleteCivicStatedPosition", .delete, "/v1/admin/civic/people/{personId}/positions/{billId}",
            Civic.DeleteStatedPosition.self, access: .signedIn, status: .noContent
        ) { input in .init(personId: input.path("personId"), billId: input.path("billId")) },
    ]

    /// The body of `PUT /v1/admin/civic/people/{personId}/positions/{billId}`.
    struct StatedPositionBody: Decodable {
        let position: String
        let statedOn: String
        let sourceUrl: String
        let checkedOn: String
    }

    /// PolitiMap's lookup of a point: the body goes to civic as it came (at most
    /// ``civicLookupBodyLimit`` bytes, 413 beyond), read by nothing here, so the gateway holds no
    /// coordinate in any value, log line or error; civic reads it strictly and refuses it naming
    /// only the member and the rule (`LookupBody`). Not cacheable: the point is in the body.
    static let civicLookup = BusRoute.forwardingBody(
        "civicLookup", .post, "/v1/civic/lookup", Civic.Lookup.self, access: .anyone,
        bodyLimit: civicLookupBodyLimit)

    /// The most bytes of a lookup's body: `{"lat": …, "lon": …}` needs under 100 (civic's own
    /// limit is the same).
    static let civicLookupBodyLimit = 1024

    /// The `chamber` filter: `upper`, `lower` or `legislature`, or nil when absent; any other
    /// value is a 400 naming `chamber` (the contract's closed set cannot carry it to civic).
    static func chamber(_ input: Input) throws(ServiceError) -> Civic.Chamber? {
        guard let text = try input.string("chamber") else { return nil }
        guard let chamber = Civic.Chamber(rawValue: text) else {
            let values = Civic.Chamber.allCases.map(\.rawValue).joined(separator: ", ")
            throw ServiceError.invalidArgument("chamber must be one of \(values)", field: "chamber")
        }
        return chamber
    }

    /// A page's `cursor` and `limit` (its range is civic's rule).
    static func page(_ input: Input) throws(ServiceError) -> PageRequest {
        PageRequest(cursor: try input.string("cursor"), limit: try input.integer("limit"))
    }
}
