import Contract
import Crypto
import Foundation
import OpenAPIRuntime
import PrintingContract
import ServiceKit

/// `/v1/images`: raw image uploads, passed to the `printing` service (which applies the limits
/// and guards) as base64 inside the JSON payload.
extension GatewayAPI {
    /// The most the gateway reads of an upload; printing's own limit (`IMAGE_MAX_BYTES`) is lower.
    static let imageBodyCap = 64 << 20

    /// An image body in base64, read up to ``imageBodyCap`` (400 `too_large` beyond).
    static func imageBase64(_ body: HTTPBody) async throws -> String {
        do {
            return Data(try await [UInt8](collecting: body, upTo: imageBodyCap)).base64EncodedString()
        } catch {
            throw ServiceError(
                .invalidArgument, "the image is larger than \(imageBodyCap) bytes",
                details: ["reason": "too_large", "field": "body"])
        }
    }

    func uploadImage(_ input: Operations.UploadImage.Input) async throws -> Operations.UploadImage.Output {
        let (contentType, body): (String, HTTPBody) =
            switch input.body {
            case .jpeg(let body): ("image/jpeg", body)
            case .png(let body): ("image/png", body)
            case .imageBmp(let body): ("image/bmp", body)
            }
        let info = try await callAsCaller(
            Printing.UploadImage.self,
            .init(contentType: contentType, data: try await Self.imageBase64(body)))
        return .created(.init(body: .json(try OrdersJSON.convert(info))))
    }

}

extension GatewayAPI {
    /// A preview: `w` and the request's `Accept` (which chooses JPEG or PNG when the body names
    /// no `format`) go to printing with the body.
    func previewPostcard(_ input: Operations.PreviewPostcard.Input) async throws -> Operations.PreviewPostcard.Output {
        guard case .json(let body) = input.body else { throw ServiceError(.invalidArgument, "send JSON") }
        var request: Printing.PreviewPostcard.Request = try OrdersJSON.convert(body)
        request.width = input.query.w
        request.accept = RequestAccept.header
        let reply = try await callAsCaller(Printing.PreviewPostcard.self, request)
        guard let bytes = Data(base64Encoded: reply.data) else {
            throw ServiceError(.internal, "printing sent a preview that is not base64")
        }
        let image = [UInt8](bytes)
        return .ok(
            .init(
                headers: .init(
                    xPrintWarning: reply.warning, eTag: EntityTag.quoted(SHA256.hash(data: image)), vary: "Accept",
                    cacheControl: "private, no-store"),
                body: reply.mediaType == "image/png" ? .png(HTTPBody(image)) : .jpeg(HTTPBody(image))))
    }
}
