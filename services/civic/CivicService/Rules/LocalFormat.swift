import CivicContract
import Contract
import Foundation

/// The local JSON format (`politimap-local/1`) checked and turned into the records the feed's
/// pages become (no I/O): every refusal is `invalid_argument` naming its field, e.g.
/// `items[3].updatedAt`. Items and meetings get source ids `local:<jurisdiction id>:<id>`, so
/// they never meet a feed's ids, and re-importing a file finds the same rows.
public enum LocalFormat {
    public static let format = "politimap-local/1"
    public static let maxItems = 2000
    public static let maxMeetings = 500
    public static let statuses = ["confirmed", "tentative", "cancelled", "passed"]

    /// What a file becomes: the rows the importer writes.
    public struct Records: Sendable {
        public var bills: [BillRecord]
        public var meetings: [MeetingRecord]
        public var people: [PersonRecord]
        public var positions: [StatedPositionRecord]
    }

    /// The records of `file`, checked.
    public static func records(_ file: Civic.LocalFile) throws(ServiceError) -> Records {
        guard file.format == format else {
            throw ServiceError.invalidArgument("format must be \(format)", field: "format")
        }
        let id = file.jurisdiction.id
        guard id.hasPrefix("ocd-jurisdiction/"), id.count <= 200, !id.contains(where: \.isWhitespace) else {
            throw ServiceError.invalidArgument(
                "jurisdiction.id must be an Open Civic Data jurisdiction id (ocd-jurisdiction/...)",
                field: "jurisdiction.id")
        }
        let name = try text(file.jurisdiction.name, "jurisdiction.name", max: 200)
        let body = try file.body.map { (value) throws(ServiceError) in try text(value, "body", max: 200) } ?? name
        let jurisdiction = OpenStates.JurisdictionRef(id: id, name: name, classification: nil)
        let organization = OpenStates.OrganizationRef(name: body, classification: "legislature")
        let items = file.items ?? []
        let meetings = file.meetings ?? []
        guard items.count <= maxItems else {
            throw ServiceError.invalidArgument("items holds at most \(maxItems) items a file", field: "items")
        }
        guard meetings.count <= maxMeetings else {
            throw ServiceError.invalidArgument("meetings holds at most \(maxMeetings) meetings a file", field: "meetings")
        }
        let people = try members(file, jurisdiction: jurisdiction)
        let names = Dictionary(
            people.map { ($0.sourceId, $0.name) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        var bills: [BillRecord] = []
        for (index, item) in items.enumerated() {
            let at = "items[\(index)]"
            let itemId = try text(item.id, "\(at).id", max: 200)
            guard seen.insert(itemId).inserted else {
                throw ServiceError.invalidArgument("\(at).id repeats an earlier item's id", field: "\(at).id")
            }
            guard FeedDate.moment(item.updatedAt) != nil, item.updatedAt.count > 10 else {
                throw ServiceError.invalidArgument(
                    "\(at).updatedAt must be an RFC 3339 time, e.g. 2026-11-18T18:00:00-08:00", field: "\(at).updatedAt")
            }
            var actions: [OpenStates.Action] = []
            for (number, action) in (item.actions ?? []).enumerated() {
                let place = "\(at).actions[\(number)]"
                actions.append(
                    .init(
                        organization: organization, description: try text(action.description, "\(place).description"),
                        date: try day(action.date, "\(place).date"), classification: action.classification ?? [],
                        order: number + 1))
            }
            let subjects = try (item.subjects ?? []).enumerated().map { (number, subject) throws(ServiceError) in
                try text(subject, "\(at).subjects[\(number)]", max: 100)
            }
            let sponsors = try (item.sponsors ?? []).enumerated().map { (number, sponsor) throws(ServiceError) in
                OpenStates.Sponsorship(
                    name: try text(sponsor, "\(at).sponsors[\(number)]", max: 200), entityType: "person",
                    primary: number == 0, classification: number == 0 ? "primary" : "cosponsor", person: nil)
            }
            let summary = try item.summary.map { (value) throws(ServiceError) in
                try text(value, "\(at).summary", max: 20_000)
            }
            let bill = OpenStates.Bill(
                id: sourceId(id, itemId), session: try text(item.session, "\(at).session", max: 100),
                jurisdiction: jurisdiction, identifier: try text(item.identifier, "\(at).identifier", max: 100),
                title: try text(item.title, "\(at).title", max: 2000), subject: subjects,
                createdAt: actions.first?.date ?? item.updatedAt, updatedAt: item.updatedAt,
                firstActionDate: actions.first?.date, latestActionDate: actions.last?.date,
                latestActionDescription: actions.last?.description,
                abstracts: summary.map { [OpenStates.Abstract(abstract: $0, note: nil)] }, actions: actions,
                sponsorships: sponsors,
                votes: try votes(item.votes, at, jurisdiction: id, names: names, organization: organization),
                versions: [],
                documents: try documents(item.documents, at), sources: try sources(item.sources, at))
            bills.append(try BillRecord(bill))
        }
        seen = []
        var records: [MeetingRecord] = []
        for (index, meeting) in meetings.enumerated() {
            let at = "meetings[\(index)]"
            let meetingId = try text(meeting.id, "\(at).id", max: 200)
            guard seen.insert(meetingId).inserted else {
                throw ServiceError.invalidArgument("\(at).id repeats an earlier meeting's id", field: "\(at).id")
            }
            guard meeting.startsAt.count > 10, FeedDate.moment(meeting.startsAt) != nil else {
                throw ServiceError.invalidArgument(
                    "\(at).startsAt must be an RFC 3339 time, e.g. 2026-12-02T18:00:00-08:00", field: "\(at).startsAt")
            }
            if let ends = meeting.endsAt, ends.count <= 10 || FeedDate.moment(ends) == nil {
                throw ServiceError.invalidArgument("\(at).endsAt must be an RFC 3339 time", field: "\(at).endsAt")
            }
            if let status = meeting.status, !statuses.contains(status) {
                throw ServiceError.invalidArgument(
                    "\(at).status must be one of \(statuses.joined(separator: ", "))", field: "\(at).status")
            }
            var agenda: [OpenStates.AgendaItem] = []
            for (number, entry) in (meeting.agenda ?? []).enumerated() {
                let place = "\(at).agenda[\(number)]"
                let related = try (entry.items ?? []).enumerated().map { (k, item) throws(ServiceError) in
                    OpenStates.RelatedEntity(
                        name: nil, entityType: "bill",
                        bill: .init(id: sourceId(id, try text(item, "\(place).items[\(k)]", max: 200)), identifier: nil))
                }
                agenda.append(
                    .init(
                        description: try text(entry.description, "\(place).description", max: 5000),
                        order: entry.order, relatedEntities: related))
            }
            let event = OpenStates.Event(
                id: sourceId(id, meetingId), name: try text(meeting.name, "\(at).name", max: 500),
                jurisdiction: jurisdiction, startDate: meeting.startsAt, endDate: meeting.endsAt,
                status: meeting.status, updatedAt: nil,
                location: try meeting.location.map { (value) throws(ServiceError) in
                    OpenStates.Location(name: try text(value, "\(at).location", max: 500))
                },
                participants: [.init(name: body, entityType: "organization")], agenda: agenda,
                documents: try documents(meeting.documents, at), sources: try sources(meeting.sources, at))
            records.append(try MeetingRecord(event))
        }
        return Records(
            bills: bills, meetings: records, people: people,
            positions: try positions(file.positions, jurisdiction: id, names: names))
    }

    /// The source id of a local item or meeting.
    public static func sourceId(_ jurisdiction: String, _ id: String) -> String { "local:\(jurisdiction):\(id)" }

    static func text(_ value: String, _ field: String, max: Int = 1000) throws(ServiceError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= max else {
            throw ServiceError.invalidArgument("\(field) must be 1-\(max) characters", field: field)
        }
        return trimmed
    }

    static func day(_ value: String, _ field: String) throws(ServiceError) -> String {
        guard value.count == 10, let day = FeedDate.day(value), FeedDate.moment(day) != nil else {
            throw ServiceError.invalidArgument("\(field) must be a date YYYY-MM-DD", field: field)
        }
        return day
    }

    static func url(_ value: String, _ field: String) throws(ServiceError) -> String {
        guard value.count <= 2000, let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased()),
            url.host?.isEmpty == false
        else { throw ServiceError.invalidArgument("\(field) must be an http or https URL", field: field) }
        return value
    }

    static func documents(_ documents: [Civic.LocalDocument]?, _ at: String) throws(ServiceError)
        -> [OpenStates.DocumentVersion]
    {
        try (documents ?? []).enumerated().map { (number, document) throws(ServiceError) in
            let place = "\(at).documents[\(number)]"
            return OpenStates.DocumentVersion(
                note: try document.note.map { (value) throws(ServiceError) in try text(value, "\(place).note", max: 500) }
                    ?? "Document",
                date: try document.date.map { (value) throws(ServiceError) in try day(value, "\(place).date") },
                links: [.init(url: try url(document.url, "\(place).url"), note: nil, mediaType: nil)])
        }
    }

    static func sources(_ sources: [String]?, _ at: String) throws(ServiceError) -> [OpenStates.Link] {
        try (sources ?? []).enumerated().map { (number, source) throws(ServiceError) in
            OpenStates.Link(url: try url(source, "\(at).sources[\(number)]"), note: nil, mediaType: nil)
        }
    }
}
