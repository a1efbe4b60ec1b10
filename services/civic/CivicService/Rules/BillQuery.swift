import CivicContract
import Contract
import Foundation

/// A bill list's query string checked: closed sets by their names, the text search's words
/// bounded, a refusal naming the field.
public enum BillQuery {
    /// The longest search text accepted.
    public static let maxQueryLength = 200

    /// The filter of `request` (the topic's subjects are looked up by the caller and passed in).
    public static func filter(_ request: Civic.ListBills.Request, topicSubjects: [String]?) throws(ServiceError)
        -> BillFilter
    {
        let level = try request.level.map { (text) throws(ServiceError) -> Civic.Level in
            guard let level = Civic.Level(rawValue: text) else {
                throw ServiceError.invalidArgument("level is local, county, state or federal", field: "level")
            }
            return level
        }
        let status = try request.status.map { (text) throws(ServiceError) -> Civic.BillStatus in
            guard let status = Civic.BillStatus(rawValue: text) else {
                throw ServiceError.invalidArgument(
                    "status is one of \(Civic.BillStatus.allCases.map(\.rawValue).joined(separator: ", "))",
                    field: "status")
            }
            return status
        }
        let sort = try request.sort.map { (text) throws(ServiceError) -> Civic.BillSort in
            guard let sort = Civic.BillSort(rawValue: text) else {
                throw ServiceError.invalidArgument("sort is recent or introduced", field: "sort")
            }
            return sort
        } ?? .recent
        let since = try request.updatedSince.map { (text) throws(ServiceError) in
            try FeedDate.parse(text, field: "updatedSince")
        }
        return BillFilter(
            level: level, jurisdiction: try text(request.jurisdiction, field: "jurisdiction", max: 300),
            status: status, subject: try text(request.subject, field: "subject", max: 100),
            topicSubjects: topicSubjects, query: try query(request.q), updatedSince: since, sort: sort)
    }

    /// The search text trimmed, or nil when there is none; 400 when too long or without a letter or digit.
    public static func query(_ q: String?) throws(ServiceError) -> String? {
        guard let q = try text(q, field: "q", max: maxQueryLength) else { return nil }
        guard q.unicodeScalars.contains(where: { CharacterSet.alphanumerics.contains($0) }) else {
            throw ServiceError.invalidArgument("q needs a letter or digit", field: "q")
        }
        return q
    }

    /// A filter's text trimmed; nil when absent or blank; 400 naming `field` past `max` characters.
    static func text(_ value: String?, field: String, max: Int) throws(ServiceError) -> String? {
        guard let value else { return nil }
        // Counted as JSON Schema's maxLength counts: Unicode code points, before trimming.
        guard value.unicodeScalars.count <= max, !value.contains("\u{0}") else {
            throw ServiceError.invalidArgument("\(field) is at most \(max) characters", field: field)
        }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A civic id (a UUID) from a path, or 404 naming what was asked for.
    public static func id(_ text: String, what: String) throws(ServiceError) -> UUID {
        guard let id = UUID(uuidString: text) else { throw ServiceError.notFound("no \(what) \(text)") }
        return id
    }
}
