import Contract
import Foundation
import OpenAPIRuntime
import PrintingContract
import ServiceKit

/// `/v1/gallery`, `/v1/admin/gallery` and `/v1/ecards/{token}`: answered by the `printing`
/// service, which checks roles and positions.
extension GatewayAPI {
    func addGalleryImage(_ input: Operations.AddGalleryImage.Input) async throws -> Operations.AddGalleryImage.Output {
        let (contentType, body): (String, HTTPBody) =
            switch input.body {
            case .jpeg(let body): ("image/jpeg", body)
            case .png(let body): ("image/png", body)
            case .imageBmp(let body): ("image/bmp", body)
            }
        let query = input.query
        let item = try await callAsCaller(
            Printing.AddGalleryImage.self,
            .init(
                contentType: contentType, data: try await Self.imageBase64(body), title: query.title, lat: query.lat,
                lon: query.lon, tags: query.tags.map { $0.split(separator: ",").map(String.init) },
                place: query.place))
        return .created(.init(body: .json(try OrdersJSON.convert(item))))
    }

    func getECardImage(_ input: Operations.GetECardImage.Input) async throws -> Operations.GetECardImage.Output {
        let reply = try await callOpenly(
            Printing.ECardImage.self, .init(token: input.path.token))
        guard let bytes = Data(base64Encoded: reply.data) else {
            throw ServiceError(.internal, "printing sent an e-card that is not base64")
        }
        return .ok(.init(body: .jpeg(HTTPBody([UInt8](bytes)))))
    }
}
