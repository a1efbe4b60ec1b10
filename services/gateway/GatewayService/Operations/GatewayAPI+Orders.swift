import Contract
import Foundation
import OpenAPIRuntime
import OrdersContract
import ServiceKit

/// `/v1/quotes`, `/v1/currencies`, `/v1/payment-methods`, `/v1/orders`: answered by the
/// `orders` service.
///
/// The public schemas in `openapi.yaml` have the same JSON shape as the contract types in
/// `Contract/Orders.swift`, so bodies are carried across by re-encoding (``OrdersJSON``) rather
/// than copied field by field.
extension GatewayAPI {
    func putCurrencyRates(_ input: Operations.PutCurrencyRates.Input) async throws
        -> Operations.PutCurrencyRates.Output
    {
        guard case .xml(let body) = input.body else {
            throw ServiceError(.invalidArgument, "send the ECB XML document as application/xml")
        }
        let xml: String
        do {
            xml = try await String(collecting: body, upTo: 1 << 20)
        } catch {
            throw ServiceError(.invalidArgument, "the rates document is larger than 1 MiB")
        }
        let reply = try await callAsCaller(
            Orders.LoadRates.self, .init(xml: xml))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }
}

/// Carries a value between a generated OpenAPI type and the contract type of the same JSON
/// shape, through the contract's encoder and decoder.
enum OrdersJSON {
    /// `value` re-read as `T`; a mismatch names the field (a 400), as any malformed payload does.
    static func convert<T: Decodable>(_ value: some Encodable) throws -> T {
        try Wire.decodePayload(T.self, from: Array(try Wire.makeEncoder().encode(value)))
    }

}
