import Contract
import Foundation
import OpenAPIRuntime
import PrintingContract
import ServiceKit

/// `/v1/admin/postage`: the postage file, answered by the `printing` service.
extension GatewayAPI {
    func putPostage(_ input: Operations.PutPostage.Input) async throws -> Operations.PutPostage.Output {
        guard case .xml(let body) = input.body else {
            throw ServiceError(.invalidArgument, "send the postage file as application/xml")
        }
        let xml: String
        do {
            xml = try await String(collecting: body, upTo: 1 << 20)
        } catch {
            throw ServiceError(.invalidArgument, "the postage file is larger than 1 MiB")
        }
        let reply = try await callAsCaller(
            Printing.LoadPostage.self, .init(xml: xml))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }
}
