import Contract
import Foundation
import OpenAPIRuntime
import PrintingContract
import ServiceKit

/// `/s/{token}` and `/s/{token}/image`: a shared card's public page and image, answered by the
/// `printing` service. No bearer token: the token in the path is the capability (logged as `{}`).
extension GatewayAPI {
    func getSharePage(_ input: Operations.GetSharePage.Input) async throws -> Operations.GetSharePage.Output {
        let reply = try await callOpenly(Printing.SharePage.self, .init(token: input.path.token))
        return .ok(.init(body: .html(HTTPBody(reply.html))))
    }

    func getShareImage(_ input: Operations.GetShareImage.Input) async throws -> Operations.GetShareImage.Output {
        let reply = try await callOpenly(Printing.ShareImage.self, .init(token: input.path.token))
        guard let bytes = Data(base64Encoded: reply.data) else {
            throw ServiceError(.internal, "printing sent a share image that is not base64")
        }
        return .ok(.init(body: .jpeg(HTTPBody([UInt8](bytes)))))
    }
}
