import CivicContract
import Contract
import Foundation

/// A bill as civic stores it, made from one Open States bill: the columns lists read, the
/// detail page (links to people by their feed ids), a fingerprint per field, and the words
/// search reads.
public struct BillRecord: Sendable, Equatable {
    /// A sponsor as stored: the person's feed id, linked to a civic person at read.
    public struct StoredSponsor: Codable, Sendable, Equatable {
        public var name: String
        public var personSourceId: String?
        public var primary: Bool
    }

    public struct StoredMemberVote: Codable, Sendable, Equatable {
        public var name: String
        public var personSourceId: String?
        public var option: String
    }

    public struct StoredVote: Codable, Sendable, Equatable {
        public var motion: String
        public var date: String
        public var result: String
        public var organization: String?
        public var counts: [String: Int]
        public var votes: [StoredMemberVote]
    }

    /// What the detail page shows beyond the list columns.
    public struct Detail: Codable, Sendable, Equatable {
        public var actions: [Civic.BillAction]
        public var sponsors: [StoredSponsor]
        public var votes: [StoredVote]
        public var versions: [Civic.Document]
        public var documents: [Civic.Document]
        public var sources: [Civic.Link]
    }

    public var sourceId: String
    public var jurisdiction: Civic.Jurisdiction
    public var session: String
    public var identifier: String
    public var title: String
    public var summary: String?
    public var subjects: [String]
    public var status: Civic.BillStatus
    public var introducedOn: String?
    public var latestActionOn: String?
    public var latestAction: String?
    public var sourceUpdatedAt: Date
    public var introducedAt: Date
    public var activityAt: Date
    public var detail: Detail
    /// Field name → fingerprint.
    public var fingerprints: [String: String]

    /// The words full-text search and the typo-tolerant match read.
    public var searchText: String { [identifier, title, summary ?? ""].joined(separator: " ") }

    /// The record of `bill`; `invalid_argument` when a date it needs cannot be read.
    public init(_ bill: OpenStates.Bill) throws(ServiceError) {
        guard let updated = FeedDate.moment(bill.updatedAt) else {
            throw ServiceError.invalidArgument("bill \(bill.id) has no readable updated_at", field: "updated_at")
        }
        let level = JurisdictionLevel.of(id: bill.jurisdiction.id, classification: bill.jurisdiction.classification)
        sourceId = bill.id
        jurisdiction = .init(id: bill.jurisdiction.id, name: bill.jurisdiction.name, level: level)
        session = bill.session
        identifier = bill.identifier
        title = bill.title
        summary = bill.abstracts?.first?.abstract
        subjects = (bill.subject ?? []).sorted()
        let actions = (bill.actions ?? []).enumerated()
            .sorted { ($0.element.date, $0.element.order ?? $0.offset) < ($1.element.date, $1.element.order ?? $1.offset) }
            .map(\.element)
        status = BillStatusRule.status(
            actions: actions.map(\.classification), chambers: BillStatusRule.chambers(at: level))
        introducedOn = FeedDate.day(bill.firstActionDate) ?? FeedDate.day(actions.first?.date)
        latestActionOn = FeedDate.day(bill.latestActionDate) ?? FeedDate.day(actions.last?.date)
        latestAction = bill.latestActionDescription ?? actions.last?.description
        sourceUpdatedAt = updated
        introducedAt = introducedOn.flatMap { FeedDate.moment($0) } ?? FeedDate.moment(bill.createdAt) ?? updated
        activityAt = latestActionOn.flatMap { FeedDate.moment($0) } ?? introducedAt
        detail = Detail(
            actions: actions.map {
                .init(
                    date: FeedDate.day($0.date) ?? $0.date, description: $0.description,
                    organization: $0.organization?.name, classification: $0.classification)
            },
            sponsors: (bill.sponsorships ?? []).map {
                .init(name: $0.name, personSourceId: $0.person?.id, primary: $0.primary)
            },
            votes: (bill.votes ?? []).map { vote in
                .init(
                    motion: vote.motionText, date: FeedDate.day(vote.startDate) ?? vote.startDate,
                    result: vote.result, organization: vote.organization?.name,
                    counts: Dictionary(vote.counts.map { ($0.option, $0.value) }, uniquingKeysWith: +),
                    votes: vote.votes.map { .init(name: $0.voterName, personSourceId: $0.voter?.id, option: $0.option) })
            },
            versions: (bill.versions ?? []).map(Self.document),
            documents: (bill.documents ?? []).map(Self.document),
            sources: (bill.sources ?? []).map { .init(url: $0.url, note: $0.note) })
        fingerprints = [:]
        fingerprints = Self.fingerprints(of: self)
    }

    static func document(_ version: OpenStates.DocumentVersion) -> Civic.Document {
        .init(
            note: version.note, date: FeedDate.day(version.date),
            links: version.links.map { .init(url: $0.url, note: $0.mediaType) })
    }

    /// One fingerprint per field a reader would notice changing.
    static func fingerprints(of record: BillRecord) -> [String: String] {
        [
            "session": Fingerprint.of(record.session), "identifier": Fingerprint.of(record.identifier),
            "title": Fingerprint.of(record.title), "summary": Fingerprint.of(record.summary),
            "subjects": Fingerprint.of(record.subjects), "status": Fingerprint.of(record.status),
            "actions": Fingerprint.of(record.detail.actions), "sponsors": Fingerprint.of(record.detail.sponsors),
            "votes": Fingerprint.of(record.detail.votes), "versions": Fingerprint.of(record.detail.versions),
            "documents": Fingerprint.of(record.detail.documents), "sources": Fingerprint.of(record.detail.sources),
        ]
    }

    /// The fields whose fingerprint differs from `stored` (sorted); empty when nothing changed.
    public func changedFields(since stored: [String: String]) -> [String] {
        fingerprints.keys.filter { stored[$0] != fingerprints[$0] }.sorted()
    }
}
