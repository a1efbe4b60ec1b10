import Contract
import Foundation
import OpenAPIRuntime
import PrintingContract
import ServiceKit

/// `/v1/postage` and `/v1/admin/postage`: answered by the `printing` service. Bodies cross by
/// re-encoding (``OrdersJSON``), as the public schemas share the contract types' JSON shape.
extension GatewayAPI {
    func getPostage(_ input: Operations.GetPostage.Input) async throws -> Operations.GetPostage.Output {
        let reply = try await callOpenly(
            Printing.GetPostage.self, Empty())
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func putPostage(_ input: Operations.PutPostage.Input) async throws -> Operations.PutPostage.Output {
        try requireCaller()  // before the body is read
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
