import CivicContract
import Contract
import Foundation
import ServiceKit
import Store

/// The meeting endpoints: meetings in a time range, and a body's next meeting.
public struct MeetingHandler: Sendable {
    let meetings: MeetingStore
    let clock: any WallClock

    public init(meetings: MeetingStore, clock: any WallClock) {
        self.meetings = meetings
        self.clock = clock
    }

    /// `list_meetings`.
    public func list(_ request: Civic.ListMeetings.Request, _ context: OperationContext) async throws
        -> Civic.ListMeetings.Reply
    {
        let limit = try Civic.ListMeetings.pageSize.limit(request.page.limit)
        let cursor = try KeysetCursor.parse(request.page.cursor)
        let from = try request.from.map { (text) throws(ServiceError) in try FeedDate.parse(text, field: "from") }
        let to = try request.to.map { (text) throws(ServiceError) in try FeedDate.parse(text, field: "to") }
        if let from, let to, to < from { throw ServiceError.invalidArgument("to must not be before from", field: "to") }
        let fetched = try await meetings.list(
            jurisdiction: try BillQuery.text(request.jurisdiction, field: "jurisdiction", max: 300), from: from, to: to,
            after: cursor, limit: limit)
        let cursorAfter = fetched.count > limit ? fetched[limit - 1] : nil
        return .init(
            items: fetched.prefix(limit).map(\.meeting),
            nextCursor: cursorAfter.map { KeysetCursor.text(at: $0.startsAt, id: $0.meeting.id) })
    }

    /// `next_meeting`.
    public func next(_ request: Civic.NextMeeting.Request, _ context: OperationContext) async throws -> Civic.Meeting {
        guard let body = try BillQuery.text(request.body, field: "body", max: 200) else {
            throw ServiceError.invalidArgument("name the body, e.g. San Luis Obispo City Council", field: "body")
        }
        guard let meeting = try await meetings.next(body: body, now: clock.now()) else {
            throw ServiceError.notFound("no meeting of \(body) is scheduled")
        }
        return meeting
    }
}
