import CivicContract
import Foundation

/// The filters of a bill list, checked (``BillQuery/filter(_:topicSubjects:)``).
public struct BillFilter: Sendable {
    public var level: Civic.Level?
    public var jurisdiction: String?
    public var status: Civic.BillStatus?
    public var subject: String?
    public var topicSubjects: [String]?
    public var query: String?
    public var updatedSince: Date?
    public var sort: Civic.BillSort
}

