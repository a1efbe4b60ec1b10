import CivicContract
import Contract
import Foundation
import OpenAPIRuntime
import ServiceKit

/// PolitiMap, answered by `civic`: public bills, people and meetings (with ETags), and the
/// caller's bookmarks.
extension GatewayAPI {
    /// A public read: the reply, its ETag, and whether the client's copy (`If-None-Match`) is current.
    func cacheable<Operation: ServiceOperation>(
        _ operation: Operation.Type, _ request: Operation.Request, ifNoneMatch: String?
    ) async throws -> (reply: Operation.Reply, tag: EntityTag, current: Bool) {
        let reply = try await callOpenly(operation, request)
        let tag = try EntityTag(of: reply)
        return (reply, tag, tag.isMatched(by: ifNoneMatch))
    }

    func listCivicJurisdictions(_ input: Operations.ListCivicJurisdictions.Input) async throws
        -> Operations.ListCivicJurisdictions.Output
    {
        let (reply, tag, current) = try await cacheable(
            Civic.ListJurisdictions.self, Empty(), ifNoneMatch: input.headers.ifNoneMatch)
        if current { return .notModified(.init(headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl))) }
        return .ok(
            .init(
                headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl),
                body: .json(.init(items: reply.items.map(Components.Schemas.CivicJurisdiction.init)))))
    }

    func listBills(_ input: Operations.ListBills.Input) async throws -> Operations.ListBills.Output {
        let query = input.query
        let request = Civic.ListBills.Request(
            level: query.level?.rawValue, jurisdiction: query.jurisdiction, status: query.status?.rawValue,
            subject: query.subject, topic: query.topic, q: query.q,
            updatedSince: query.updatedSince.map { FeedTime.text($0) }, sort: query.sort?.rawValue,
            page: .init(cursor: query.cursor, limit: query.limit))
        let (reply, tag, current) = try await cacheable(
            Civic.ListBills.self, request, ifNoneMatch: input.headers.ifNoneMatch)
        if current { return .notModified(.init(headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl))) }
        return .ok(
            .init(
                headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl),
                body: .json(
                    .init(items: reply.items.map(Components.Schemas.BillSummary.init), nextCursor: reply.nextCursor))))
    }

    func getBill(_ input: Operations.GetBill.Input) async throws -> Operations.GetBill.Output {
        let (reply, tag, current) = try await cacheable(
            Civic.GetBill.self, .init(id: input.path.id), ifNoneMatch: input.headers.ifNoneMatch)
        if current { return .notModified(.init(headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl))) }
        return .ok(
            .init(
                headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl),
                body: .json(.init(reply))))
    }

    func highlightedBills(_ input: Operations.HighlightedBills.Input) async throws
        -> Operations.HighlightedBills.Output
    {
        let (reply, tag, current) = try await cacheable(
            Civic.HighlightedBills.self, .init(level: input.query.level?.rawValue),
            ifNoneMatch: input.headers.ifNoneMatch)
        if current { return .notModified(.init(headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl))) }
        return .ok(
            .init(
                headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl),
                body: .json(
                    .init(
                        levels: reply.levels.map {
                            .init(
                                level: .init(rawValue: $0.level.rawValue) ?? .federal,
                                bills: $0.bills.map(Components.Schemas.BillSummary.init))
                        }))))
    }

    func setBillHighlight(_ input: Operations.SetBillHighlight.Input) async throws
        -> Operations.SetBillHighlight.Output
    {
        try requireCaller()
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        _ = try await callAsCaller(
            Civic.SetHighlight.self, .init(billId: input.path.billId, highlighted: body.highlighted))
        return .noContent(.init())
    }

    func listCivicTopics(_ input: Operations.ListCivicTopics.Input) async throws -> Operations.ListCivicTopics.Output {
        let (reply, tag, current) = try await cacheable(
            Civic.ListTopics.self, Empty(), ifNoneMatch: input.headers.ifNoneMatch)
        if current { return .notModified(.init(headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl))) }
        return .ok(
            .init(
                headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl),
                body: .json(.init(items: reply.items.map { .init(id: $0.id, name: $0.name, subjects: $0.subjects) }))))
    }

    func listCivicPeople(_ input: Operations.ListCivicPeople.Input) async throws -> Operations.ListCivicPeople.Output {
        let query = input.query
        let (reply, tag, current) = try await cacheable(
            Civic.ListPeople.self,
            .init(
                jurisdiction: query.jurisdiction, district: query.district,
                page: .init(cursor: query.cursor, limit: query.limit)), ifNoneMatch: input.headers.ifNoneMatch)
        if current { return .notModified(.init(headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl))) }
        return .ok(
            .init(
                headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl),
                body: .json(
                    .init(
                        items: reply.items.map(Components.Schemas.CivicPersonSummary.init),
                        nextCursor: reply.nextCursor))))
    }

    func getCivicPerson(_ input: Operations.GetCivicPerson.Input) async throws -> Operations.GetCivicPerson.Output {
        let (reply, tag, current) = try await cacheable(
            Civic.GetPerson.self, .init(id: input.path.id), ifNoneMatch: input.headers.ifNoneMatch)
        if current { return .notModified(.init(headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl))) }
        return .ok(
            .init(
                headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl),
                body: .json(
                    .init(
                        summary: .init(reply.summary),
                        facts: .init(
                            additionalProperties: reply.facts.mapValues {
                                .init(value: $0.value, sourceUrl: $0.sourceUrl, verifiedAt: FeedTime.date($0.verifiedAt))
                            }),
                        positions: reply.positions.map {
                            .init(
                                billId: $0.billId, billIdentifier: $0.billIdentifier, billTitle: $0.billTitle,
                                kind: .init(rawValue: $0.kind) ?? .vote, position: $0.position, date: $0.date,
                                sourceUrl: $0.sourceUrl)
                        }, positionsUnavailable: reply.positionsUnavailable))))
    }

    func listMeetings(_ input: Operations.ListMeetings.Input) async throws -> Operations.ListMeetings.Output {
        let query = input.query
        let (reply, tag, current) = try await cacheable(
            Civic.ListMeetings.self,
            .init(
                jurisdiction: query.jurisdiction, from: query.from.map { FeedTime.text($0) },
                to: query.to.map { FeedTime.text($0) }, page: .init(cursor: query.cursor, limit: query.limit)),
            ifNoneMatch: input.headers.ifNoneMatch)
        if current { return .notModified(.init(headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl))) }
        return .ok(
            .init(
                headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl),
                body: .json(.init(items: reply.items.map(Components.Schemas.Meeting.init), nextCursor: reply.nextCursor))))
    }

    func nextMeeting(_ input: Operations.NextMeeting.Input) async throws -> Operations.NextMeeting.Output {
        let meeting = try await callOpenly(Civic.NextMeeting.self, .init(body: input.query.body))
        return .ok(.init(headers: .init(cacheControl: EntityTag.publicCacheControl), body: .json(.init(meeting))))
    }

    func listBillBookmarks(_ input: Operations.ListBillBookmarks.Input) async throws
        -> Operations.ListBillBookmarks.Output
    {
        let reply = try await callAsCaller(
            Civic.ListBookmarks.self, .init(cursor: input.query.cursor, limit: input.query.limit))
        return .ok(
            .init(
                body: .json(.init(items: reply.items.map(Components.Schemas.BillBookmark.init), nextCursor: reply.nextCursor))))
    }

    func getBillBookmark(_ input: Operations.GetBillBookmark.Input) async throws -> Operations.GetBillBookmark.Output {
        .ok(.init(body: .json(.init(try await callAsCaller(Civic.GetBookmark.self, .init(billId: input.path.billId))))))
    }

    func putBillBookmark(_ input: Operations.PutBillBookmark.Input) async throws -> Operations.PutBillBookmark.Output {
        let reply = try await callAsCaller(Civic.PutBookmark.self, .init(billId: input.path.billId))
        let bookmark = Components.Schemas.BillBookmark(reply.bookmark)
        return reply.created ? .created(.init(body: .json(bookmark))) : .ok(.init(body: .json(bookmark)))
    }

    func deleteBillBookmark(_ input: Operations.DeleteBillBookmark.Input) async throws
        -> Operations.DeleteBillBookmark.Output
    {
        _ = try await callAsCaller(Civic.DeleteBookmark.self, .init(billId: input.path.billId))
        return .noContent(.init())
    }
}

/// RFC 3339 between the generated `Date`s and the contract's strings.
enum FeedTime {
    static func text(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }
    static func date(_ text: String) -> Date { (try? Date(text, strategy: .iso8601)) ?? Date(timeIntervalSince1970: 0) }
}

extension Components.Schemas.CivicJurisdiction {
    init(_ jurisdiction: Civic.Jurisdiction) {
        self.init(id: jurisdiction.id, name: jurisdiction.name, level: .init(rawValue: jurisdiction.level.rawValue) ?? .federal)
    }
}

extension Components.Schemas.CivicLink {
    init(_ link: Civic.Link) { self.init(url: link.url, note: link.note) }
}

extension Components.Schemas.CivicDocument {
    init(_ document: Civic.Document) {
        self.init(note: document.note, date: document.date, links: document.links.map(Components.Schemas.CivicLink.init))
    }
}

extension Components.Schemas.BillSummary {
    init(_ bill: Civic.BillSummary) {
        self.init(
            id: bill.id, jurisdiction: .init(bill.jurisdiction), session: bill.session, identifier: bill.identifier,
            title: bill.title, summary: bill.summary, subjects: bill.subjects,
            status: .init(rawValue: bill.status.rawValue) ?? .introduced, introducedOn: bill.introducedOn,
            latestActionOn: bill.latestActionOn, latestAction: bill.latestAction,
            updatedAt: FeedTime.date(bill.updatedAt))
    }
}

extension Components.Schemas.Bill {
    init(_ bill: Civic.Bill) {
        self.init(
            summary: .init(bill.summary),
            actions: bill.actions.map {
                .init(date: $0.date, description: $0.description, organization: $0.organization, classification: $0.classification)
            },
            sponsors: bill.sponsors.map { .init(name: $0.name, personId: $0.personId, primary: $0.primary) },
            votes: bill.votes.map { vote in
                .init(
                    motion: vote.motion, date: vote.date, result: vote.result, organization: vote.organization,
                    counts: .init(additionalProperties: vote.counts),
                    votes: vote.votes.map { .init(name: $0.name, personId: $0.personId, option: $0.option) })
            },
            versions: bill.versions.map(Components.Schemas.CivicDocument.init),
            documents: bill.documents.map(Components.Schemas.CivicDocument.init),
            sources: bill.sources.map(Components.Schemas.CivicLink.init), highlighted: bill.highlighted)
    }
}

extension Components.Schemas.CivicPersonSummary {
    init(_ person: Civic.PersonSummary) {
        self.init(
            id: person.id, name: person.name, jurisdiction: .init(person.jurisdiction), office: person.office,
            district: person.district, party: person.party, photoUrl: person.photoUrl)
    }
}

extension Components.Schemas.Meeting {
    init(_ meeting: Civic.Meeting) {
        self.init(
            id: meeting.id, jurisdiction: .init(meeting.jurisdiction), body: meeting.body, name: meeting.name,
            startsAt: FeedTime.date(meeting.startsAt), endsAt: meeting.endsAt.map(FeedTime.date),
            location: meeting.location, status: meeting.status,
            agenda: meeting.agenda.map { .init(order: $0.order, description: $0.description, billIds: $0.billIds) },
            documents: meeting.documents.map(Components.Schemas.CivicDocument.init),
            sources: meeting.sources.map(Components.Schemas.CivicLink.init))
    }
}

extension Components.Schemas.BillBookmark {
    init(_ bookmark: Civic.Bookmark) {
        self.init(billId: bookmark.billId, createdAt: FeedTime.date(bookmark.createdAt), bill: .init(bookmark.bill))
    }
}

/// PolitiMap's places: outlines to resolve offline, and a lookup that keeps nothing.
extension GatewayAPI {
    func civicBoundaries(_ input: Operations.CivicBoundaries.Input) async throws -> Operations.CivicBoundaries.Output {
        let (reply, tag, current) = try await cacheable(
            Civic.Boundaries.self, Empty(), ifNoneMatch: input.headers.ifNoneMatch)
        if current { return .notModified(.init(headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl))) }
        return .ok(
            .init(
                headers: .init(eTag: tag.value, cacheControl: EntityTag.publicCacheControl),
                body: .json(
                    .init(
                        _type: .featureCollection,
                        features: reply.features.map { feature in
                            .init(
                                _type: .feature, id: feature.id,
                                properties: .init(
                                    jurisdictionId: feature.properties.jurisdictionId, name: feature.properties.name,
                                    level: .init(rawValue: feature.properties.level.rawValue) ?? .federal,
                                    district: feature.properties.district),
                                geometry: .init(_type: .multiPolygon, coordinates: feature.geometry.coordinates))
                        }))))
    }

    func civicLookup(_ input: Operations.CivicLookup.Input) async throws -> Operations.CivicLookup.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callOpenly(Civic.Lookup.self, .init(lat: body.lat, lon: body.lon))
        return .ok(
            .init(
                body: .json(
                    .init(
                        jurisdictions: reply.jurisdictions.map {
                            .init(jurisdiction: .init($0.jurisdiction), district: $0.district)
                        }))))
    }
}

/// PolitiMap's new-bill push: subscriptions per device push token, no account; the token only
/// in a body, the secret only in a header.
extension GatewayAPI {
    func createCivicSubscription(_ input: Operations.CreateCivicSubscription.Input) async throws
        -> Operations.CreateCivicSubscription.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callOpenly(
            Civic.CreateSubscription.self,
            .init(
                deviceToken: body.deviceToken, platform: body.platform.rawValue, app: body.app,
                apnsEnvironment: body.apnsEnvironment?.rawValue, jurisdictions: body.jurisdictions,
                subjects: body.subjects ?? []))
        let created = Components.Schemas.CivicSubscriptionCreated(
            id: reply.id, secret: reply.secret, subscription: .init(reply.subscription))
        return reply.created ? .created(.init(body: .json(created))) : .ok(.init(body: .json(created)))
    }

    func updateCivicSubscription(_ input: Operations.UpdateCivicSubscription.Input) async throws
        -> Operations.UpdateCivicSubscription.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callOpenly(
            Civic.UpdateSubscription.self,
            .init(
                id: input.path.id, secret: input.headers.xSubscriptionSecret, jurisdictions: body.jurisdictions,
                subjects: body.subjects ?? [], deviceToken: body.deviceToken,
                apnsEnvironment: body.apnsEnvironment?.rawValue))
        return .ok(.init(body: .json(.init(reply))))
    }

    func deleteCivicSubscription(_ input: Operations.DeleteCivicSubscription.Input) async throws
        -> Operations.DeleteCivicSubscription.Output
    {
        _ = try await callOpenly(
            Civic.DeleteSubscription.self, .init(id: input.path.id, secret: input.headers.xSubscriptionSecret))
        return .noContent(.init())
    }
}

extension Components.Schemas.CivicSubscription {
    init(_ subscription: Civic.Subscription) {
        self.init(
            id: subscription.id, platform: .init(rawValue: subscription.platform) ?? .web, app: subscription.app,
            jurisdictions: subscription.jurisdictions, subjects: subscription.subjects,
            createdAt: FeedTime.date(subscription.createdAt), updatedAt: FeedTime.date(subscription.updatedAt))
    }
}
