import Contract
import Foundation
import Logging
import OrdersContract
import PrintingContract

/// What the printer does with print jobs: list them, download one PDF or a batch, and move them
/// on (`printed`, `mailed`, `failed`), each move with its event. Every operation takes the caller
/// as `printer`: the actor that holds the `printer` role (or `admin`).
public struct PrintJobHandler: Sendable {
    let store: PrintJobStore
    let cards: PrintJobCards
    let files: PrintJobFiles

    /// Most jobs in one batch PDF.
    public static let maxBatch = 100
    /// Longest failure reason, in characters.
    public static let maxReason = 500

    /// Creates the handler.
    public init(store: PrintJobStore, cards: PrintJobCards, files: PrintJobFiles) {
        self.store = store
        self.cards = cards
        self.files = files
    }

    /// One page of jobs, oldest first, of one status when the request names one. Pages are keyset
    /// pages on `(created_at, id)`: the cursor is the last job's id (base64url), so a job queued
    /// between two pages is never shown twice nor skips one already ordered before it.
    public func list(_ request: Printing.ListPrintJobs.Request, printer: Actor) async throws
        -> Printing.ListPrintJobs.Reply
    {
        let status = request.status
        if let status, PrintJobStatus(rawValue: status) == nil {
            let known = PrintJobStatus.allCases.map(\.rawValue).joined(separator: ", ")
            throw ServiceError.invalidArgument("status is one of \(known)", field: "status")
        }
        let limit = try Printing.ListPrintJobs.pageSize.limit(request.limit)
        var after: UUID?
        if let cursor = request.cursor {
            guard let data = Data(base64URL: cursor), let id = UUID(uuidString: String(decoding: data, as: UTF8.self))
            else { throw ServiceError.invalidArgument("cursor is not one this service gave out", field: "cursor") }
            after = id
        }
        let page = try await store.page(status: status, after: after, limit: limit + 1).map(\.job)
        return .init(fetched: page, limit: limit) { Data($0.id.utf8).base64URL }
    }

    /// The PDF of job `request.id`; `failed_precondition` until it is rendered.
    public func pdf(_ request: Printing.PrintJobPDF.Request, printer: Actor) async throws -> Printing.PDFDocument {
        let id = request.id
        let stored = try await one(id)
        guard let file = stored.file else {
            throw ServiceError(.failedPrecondition, "print job \(id) has no PDF (it is \(stored.job.status))")
        }
        return Printing.PDFDocument(data: try files.read(file).base64EncodedString())
    }

    /// One PDF of the jobs `request.ids`, in that order, rendered again from their orders. Every
    /// job must have been rendered (`ready` or later) and all must share one card size.
    public func batch(_ request: Printing.BatchPDF.Request, printer: Actor) async throws -> Printing.PDFDocument {
        let ids = request.ids
        guard !ids.isEmpty, ids.count <= Self.maxBatch else {
            throw ServiceError.invalidArgument("send 1 to \(Self.maxBatch) job ids", field: "ids")
        }
        var contents: [PostcardContent] = []
        for id in ids {
            let stored = try await one(id)
            guard stored.file != nil else {
                throw ServiceError(.failedPrecondition, "print job \(id) has no PDF (it is \(stored.job.status))")
            }
            let cards = try await self.cards.contents(of: stored.postcard, owner: stored.userId)
            if let size = contents.first?.size, cards.contains(where: { $0.size != size }) {
                throw ServiceError.invalidArgument("a batch holds cards of one size; split it by size", field: "ids")
            }
            contents += cards
        }
        let cards = contents
        let pdf = try await self.cards.pool.run { PostcardRenderer.pdf(cards: cards) }
        return Printing.PDFDocument(data: Data(pdf).base64EncodedString())
    }

    /// Moves job `id` to `status` (`printed`, `mailed` or `failed` with a reason) and publishes
    /// the move; `failed_precondition` when the job's status does not allow it.
    public func mark(_ request: Printing.MarkPrintJob.Request, printer: Actor) async throws -> Printing.PrintJob {
        guard let target = PrintJobStatus(rawValue: request.status), let topic = target.topic,
            !target.printerMovesFrom.isEmpty
        else { throw ServiceError.invalidArgument("status is printed, mailed or failed", field: "status") }
        let reason = request.reason?.trimmingCharacters(in: .whitespacesAndNewlines)
        if target == .failed, reason?.isEmpty ?? true {
            throw ServiceError.invalidArgument("a failed job needs a reason", field: "reason")
        }
        guard (reason ?? "").count <= Self.maxReason else {
            throw ServiceError.invalidArgument("the reason is at most \(Self.maxReason) characters", field: "reason")
        }
        let current = try await one(request.id).job
        guard
            try await store.change(
                try Self.uuid(request.id), from: target.printerMovesFrom.map(\.rawValue), to: target.rawValue,
                reason: target == .failed ? reason : nil, topic: topic)
        else {
            throw ServiceError(
                .failedPrecondition, "a print job that is \(current.status) cannot become \(target.rawValue)")
        }
        return try await one(request.id).job
    }

    func one(_ id: String) async throws -> PrintJobStore.Stored {
        guard let stored = try await store.find(try Self.uuid(id)) else {
            throw ServiceError.notFound("no such print job")
        }
        return stored
    }

    static func uuid(_ id: String) throws -> UUID {
        guard let uuid = UUID(uuidString: id) else { throw ServiceError.notFound("no such print job") }
        return uuid
    }
}
