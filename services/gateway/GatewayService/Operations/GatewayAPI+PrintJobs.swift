import Contract
import Foundation
import OpenAPIRuntime
import PrintingContract
import ServiceKit

/// `/v1/print-jobs`: the printer's queue, answered by the `printing` service (which checks the
/// `printer` role). PDFs cross the bus in base64 and leave as `application/pdf`.
extension GatewayAPI {
    func getPrintJobPDF(_ input: Operations.GetPrintJobPDF.Input) async throws -> Operations.GetPrintJobPDF.Output {
        let reply = try await printJobCall(Printing.PrintJobPDF.self, .init(id: input.path.id))
        return .ok(.init(body: .pdf(try Self.pdfBody(reply))))
    }

    func batchPrintJobsPDF(_ input: Operations.BatchPrintJobsPDF.Input) async throws
        -> Operations.BatchPrintJobsPDF.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await printJobCall(Printing.BatchPDF.self, .init(ids: body.ids))
        return .ok(.init(body: .pdf(try Self.pdfBody(reply))))
    }

    private func printJobCall<Operation: ServiceOperation>(_ operation: Operation.Type, _ request: Operation.Request)
        async throws -> Operation.Reply
    {
        return try await callAsCaller(operation, request)
    }

    private static func pdfBody(_ document: Printing.PDFDocument) throws -> HTTPBody {
        guard let bytes = Data(base64Encoded: document.data) else {
            throw ServiceError(.internal, "printing sent a PDF that is not base64")
        }
        return HTTPBody([UInt8](bytes))
    }
}
