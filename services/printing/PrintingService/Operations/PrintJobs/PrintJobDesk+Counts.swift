import Contract
import Foundation
import PostgresNIO
import PrintingContract

extension PrintJobDesk {
    /// The jobs created on each of the last `request.days` UTC days, by status, with their cards.
    public func counts(_ request: Printing.CountPrintJobs.Request) async throws -> Printing.CountPrintJobs.Reply {
        let days = try PrintJobDays(count: request.days, now: book.queue.clock.now())
        let rows = try await book.client.fetch(
            """
            SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), status, count(*), sum(cards)::bigint
            FROM printing.print_jobs
            WHERE created_at >= \(days.start) AND created_at < \(days.end)
            GROUP BY 1, 2
            """, logger: book.logger)
        var counts: [Printing.PrintJobDayCount] = []
        for try await (day, status, jobs, cards) in rows.decode((String, String, Int64, Int64).self) {
            counts.append(.init(day: day, status: status, jobs: Int(jobs), cards: Int(cards)))
        }
        let order = PrintJobStatus.allCases.map(\.rawValue)
        counts.sort { a, b in
            a.day != b.day
                ? a.day > b.day
                : (order.firstIndex(of: a.status) ?? order.count) < (order.firstIndex(of: b.status) ?? order.count)
        }
        return .init(from: days.firstDay, to: days.lastDay, counts: counts)
    }
}
