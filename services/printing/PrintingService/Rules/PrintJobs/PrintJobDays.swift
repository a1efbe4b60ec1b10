import Contract
import Foundation
import PrintingContract

/// The days the printer's counts cover: the last `count` UTC days, today included.
struct PrintJobDays: Sendable, Equatable {
    /// Midnight UTC that starts the first day.
    let start: Date
    /// Midnight UTC that ends today.
    let end: Date
    /// The first and last day, `YYYY-MM-DD`.
    let firstDay: String
    let lastDay: String

    /// The `count` days up to and including `now`'s day; `invalid_argument` naming `days` outside
    /// 1 to ``Printing/CountPrintJobs/maxDays``.
    init(count requested: Int?, now: Date) throws(ServiceError) {
        let count = requested ?? Printing.CountPrintJobs.defaultDays
        guard (1...Printing.CountPrintJobs.maxDays).contains(count) else {
            throw ServiceError.invalidArgument("days is 1 to \(Printing.CountPrintJobs.maxDays)", field: "days")
        }
        let day = 86_400.0
        let today = (now.timeIntervalSince1970 / day).rounded(.down) * day
        let first = Date(timeIntervalSince1970: today - Double(count - 1) * day)
        start = first
        end = Date(timeIntervalSince1970: today + day)
        firstDay = Self.text(first)
        lastDay = Self.text(Date(timeIntervalSince1970: today))
    }

    /// `YYYY-MM-DD` of the UTC day `date` falls on.
    static func text(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
