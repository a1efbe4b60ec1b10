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
    func createQuote(_ input: Operations.CreateQuote.Input) async throws -> Operations.CreateQuote.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let reply = try await callOpenly(
            Orders.Quote.self, try OrdersJSON.convert(body))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func putCurrencyRates(_ input: Operations.PutCurrencyRates.Input) async throws
        -> Operations.PutCurrencyRates.Output
    {
        try requireCaller()  // before the body is read
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

extension GatewayAPI {
    func addPaymentMethod(_ input: Operations.AddPaymentMethod.Input) async throws
        -> Operations.AddPaymentMethod.Output
    {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let request = Orders.AddPaymentMethod.Request(
            number: body.number, expMonth: body.expMonth, expYear: body.expYear, cvc: body.cvc)
        let method = try await callAsCaller(
            Orders.AddPaymentMethod.self, request)
        return .created(.init(body: .json(try OrdersJSON.convert(method))))
    }

    func listPaymentMethods(_ input: Operations.ListPaymentMethods.Input) async throws
        -> Operations.ListPaymentMethods.Output
    {
        let reply = try await callAsCaller(
            Orders.ListPaymentMethods.self, .init(cursor: input.query.cursor, limit: input.query.limit))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func deletePaymentMethod(_ input: Operations.DeletePaymentMethod.Input) async throws
        -> Operations.DeletePaymentMethod.Output
    {
        _ = try await callAsCaller(
            Orders.DeletePaymentMethod.self, .init(id: input.path.id))
        return .noContent(.init())
    }
}

extension GatewayAPI {
    func createOrder(_ input: Operations.CreateOrder.Input) async throws -> Operations.CreateOrder.Output {
        try requireCaller()
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let key = try IdempotencyKey.validated(input.headers.idempotencyKey)
        let request: Orders.PlaceOrder.Request = try OrdersJSON.convert(body)
        let reply = try await callAsCaller(Orders.PlaceOrder.self, request, idempotencyKey: key)
        return .created(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func listOrders(_ input: Operations.ListOrders.Input) async throws -> Operations.ListOrders.Output {
        let query = input.query
        let reply = try await callAsCaller(
            Orders.ListOrders.self,
            .init(query: query.q, from: query.from, to: query.to, cursor: query.cursor, limit: query.limit))
        return .ok(.init(body: .json(try OrdersJSON.convert(reply))))
    }

    func getOrder(_ input: Operations.GetOrder.Input) async throws -> Operations.GetOrder.Output {
        let order = try await callAsCaller(
            Orders.GetOrder.self, .init(id: input.path.id))
        return .ok(.init(body: .json(try OrdersJSON.convert(order))))
    }

    func cancelOrder(_ input: Operations.CancelOrder.Input) async throws -> Operations.CancelOrder.Output {
        let order = try await callAsCaller(
            Orders.CancelOrder.self, .init(id: input.path.id))
        return .ok(.init(body: .json(try OrdersJSON.convert(order))))
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

extension GatewayAPI {
    func refundOrder(_ input: Operations.RefundOrder.Input) async throws -> Operations.RefundOrder.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        let key = try IdempotencyKey.validated(input.headers.idempotencyKey)
        let refund = try await callAsCaller(
            Orders.RefundOrder.self, .init(id: input.path.id, amount: body.amount, reason: body.reason),
            idempotencyKey: key)
        return .ok(.init(body: .json(try OrdersJSON.convert(refund))))
    }
}
