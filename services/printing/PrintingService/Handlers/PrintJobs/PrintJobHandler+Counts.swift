import Contract
import Foundation
import PrintingContract

extension PrintJobHandler {
    /// The jobs created on each of the last `request.days` UTC days, by status, with their cards.
    public func counts(_ request: Printing.CountPrintJobs.Request, printer: Actor) async throws
        -> Printing.CountPrintJobs.Reply
    {
        let days = try PrintJobDays(count: request.days, now: store.queue.clock.now())
        var counts = try await store.dayCounts(from: days.start, to: days.end)
        let order = PrintJobStatus.allCases.map(\.rawValue)
        counts.sort { a, b in
            a.day != b.day
                ? a.day > b.day
                : (order.firstIndex(of: a.status) ?? order.count) < (order.firstIndex(of: b.status) ?? order.count)
        }
        return .init(from: days.firstDay, to: days.lastDay, counts: counts)
    }
}
