import CivicContract
import Contract
import Foundation

/// A meeting as civic stores it, made from one Open States event: agenda items keep the feed ids
/// of the bills they name (linked to civic bills at read).
public struct MeetingRecord: Sendable, Equatable {
    public struct StoredItem: Codable, Sendable, Equatable {
        public var order: Int
        public var description: String
        public var billSourceIds: [String]
    }

    public struct Detail: Codable, Sendable, Equatable {
        public var agenda: [StoredItem]
        public var documents: [Civic.Document]
        public var sources: [Civic.Link]
    }

    public var sourceId: String
    public var jurisdiction: Civic.Jurisdiction
    public var body: String
    public var name: String
    public var startsAt: Date
    public var endsAt: Date?
    public var location: String?
    public var status: String
    public var detail: Detail

    public init(_ event: OpenStates.Event) throws(ServiceError) {
        guard let start = FeedDate.moment(event.startDate) else {
            throw ServiceError.invalidArgument("event \(event.id) has no readable start_date", field: "start_date")
        }
        sourceId = event.id
        jurisdiction = .init(
            id: event.jurisdiction.id, name: event.jurisdiction.name,
            level: JurisdictionLevel.of(id: event.jurisdiction.id, classification: event.jurisdiction.classification))
        body = event.participants?.first { $0.entityType == "organization" }?.name ?? event.jurisdiction.name
        name = event.name
        startsAt = start
        endsAt = event.endDate.flatMap(FeedDate.moment)
        location = event.location?.name
        status = event.status ?? "confirmed"
        detail = Detail(
            agenda: (event.agenda ?? []).enumerated().map { index, item in
                .init(
                    order: item.order ?? index + 1, description: item.description,
                    billSourceIds: (item.relatedEntities ?? []).compactMap { $0.bill?.id })
            },
            documents: (event.documents ?? []).map(BillRecord.document),
            sources: (event.sources ?? []).map { .init(url: $0.url, note: $0.note) })
    }

    public var fingerprint: String {
        Fingerprint.of([
            body, name, FeedDate.text(startsAt), endsAt.map(FeedDate.text) ?? "", location ?? "", status,
            Fingerprint.of(detail),
        ])
    }
}
