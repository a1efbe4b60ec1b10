import Contract
import Foundation
import OpenAPIRuntime
import PrintingContract
import ServiceKit

/// `/v1/images/{id}/content` (scaled images) and `/v1/uploads` (resumable uploads, tus 1.0.0
/// core + creation): answered by the `printing` service, which checks owners and limits. A
/// `PATCH` body is passed on in pieces as it arrives, so the bytes of a dropped connection are
/// kept and the client resumes after the last byte stored.
extension GatewayAPI {
    /// The tus version served.
    static let tusVersion = "1.0.0"
    /// A `PATCH` body goes to printing in pieces of this many bytes (each one commit).
    static let uploadPiece = 256 << 10
    /// `Cache-Control` of a scaled image: content by id never changes.
    static let immutableCacheControl = "public, max-age=31536000, immutable"

    func getImageContent(_ input: Operations.GetImageContent.Input) async throws -> Operations.GetImageContent.Output {
        let reply = try await callAsCaller(
            Printing.ImageContent.self,
            .init(id: input.path.id, width: input.query.w.rawValue, ifNoneMatch: input.headers.ifNoneMatch))
        if reply.notModified {
            return .notModified(.init(headers: .init(eTag: reply.etag, cacheControl: Self.immutableCacheControl)))
        }
        guard let bytes = Data(base64Encoded: reply.data) else {
            throw ServiceError(.internal, "printing sent an image that is not base64")
        }
        return .ok(
            .init(
                headers: .init(eTag: reply.etag, cacheControl: Self.immutableCacheControl),
                body: .jpeg(HTTPBody([UInt8](bytes)))))
    }

    func describeUploads(_ input: Operations.DescribeUploads.Input) async throws -> Operations.DescribeUploads.Output {
        .noContent(
            .init(headers: .init(tusResumable: Self.tusVersion, tusVersion: Self.tusVersion, tusExtension: "creation")))
    }

    /// `failed_precondition` (412) unless the client speaks tus 1.0.0.
    static func checkTus(_ version: String?) -> Bool { version?.trimmingCharacters(in: .whitespaces) == tusVersion }

    func tusMismatch() -> Components.Responses.TusVersion {
        .init(
            headers: .init(tusVersion: Self.tusVersion),
            body: .json(
                .init(
                    code: .init(value1: .failedPrecondition),
                    message: "send Tus-Resumable: \(Self.tusVersion) (the tus version served)",
                    requestId: (try? scope)?.requestId)))
    }

    func createUpload(_ input: Operations.CreateUpload.Input) async throws -> Operations.CreateUpload.Output {
        try requireCaller()
        guard Self.checkTus(input.headers.tusResumable) else { return .preconditionFailed(tusMismatch()) }
        let contentType = try Self.fileType(input.headers.uploadMetadata)
        let state: Printing.UploadState
        do {
            state = try await callAsCaller(
                Printing.CreateUpload.self, .init(length: input.headers.uploadLength, contentType: contentType))
        } catch let error as ServiceError where error.details?["reason"] == .string("too_large") {
            return .contentTooLarge(
                .init(
                    body: .json(
                        .init(
                            code: .init(value1: .invalidArgument), message: error.message,
                            details: .init(
                                additionalProperties: (try? OpenAPIObjectContainer(
                                    unvalidatedValue: ["reason": "too_large", "field": "Upload-Length"])) ?? .init()),
                            requestId: (try? scope)?.requestId))))
        }
        return .created(
            .init(
                headers: .init(
                    tusResumable: Self.tusVersion, location: "/v1/uploads/\(state.id)", uploadOffset: state.offset),
                body: .json(try OrdersJSON.convert(state))))
    }

    /// The `filetype` of tus `Upload-Metadata` (`key base64value` pairs, comma-separated), if given.
    static func fileType(_ metadata: String?) throws(ServiceError) -> String? {
        guard let metadata else { return nil }
        for pair in metadata.split(separator: ",") {
            let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            guard parts.first == "filetype" else { continue }
            guard parts.count == 2, let data = Data(base64Encoded: String(parts[1])),
                let type = String(data: data, encoding: .utf8)
            else {
                throw ServiceError.invalidArgument(
                    "filetype in Upload-Metadata is not base64", field: "Upload-Metadata")
            }
            return type
        }
        return nil
    }

    func getUploadOffset(_ input: Operations.GetUploadOffset.Input) async throws -> Operations.GetUploadOffset.Output {
        // Signed in first, as POST and PATCH: a caller without a token learns nothing else.
        do { try requireCaller() } catch { return .unauthorized(.init()) }
        guard Self.checkTus(input.headers.tusResumable) else { return .preconditionFailed(.init()) }
        let state: Printing.UploadState
        do {
            state = try await callAsCaller(Printing.UploadStatus.self, .init(id: input.path.id))
        } catch let error as ServiceError where error.code == .notFound {
            return .notFound(.init())
        } catch let error as ServiceError where error.code == .unauthenticated {
            return .unauthorized(.init())
        }
        return .ok(
            .init(
                headers: .init(
                    tusResumable: Self.tusVersion, uploadOffset: state.offset, uploadLength: state.length,
                    cacheControl: "no-store", xImageId: state.image?.id)))
    }

    func appendUpload(_ input: Operations.AppendUpload.Input) async throws -> Operations.AppendUpload.Output {
        try requireCaller()
        guard Self.checkTus(input.headers.tusResumable) else { return .preconditionFailed(tusMismatch()) }
        guard case .applicationOffsetOctetStream(let body) = input.body else {
            throw ServiceError(.invalidArgument, "send the bytes as application/offset+octet-stream")
        }
        let id = input.path.id
        var offset = input.headers.uploadOffset
        var pending: [UInt8] = []
        var state: Printing.UploadState?
        func send() async throws {
            let piece = pending
            pending = []
            state = try await callAsCaller(
                Printing.AppendUpload.self, .init(id: id, offset: offset, data: Data(piece).base64EncodedString()))
            offset = state?.offset ?? offset
        }
        do {
            for try await chunk in body {
                pending += chunk
                while pending.count >= Self.uploadPiece {
                    let rest = Array(pending[Self.uploadPiece...])
                    pending = Array(pending[..<Self.uploadPiece])
                    try await send()
                    pending = rest
                }
            }
        } catch let error as ServiceError {
            throw error
        } catch {
            // The connection dropped: keep what arrived, so the client resumes after it.
            if !pending.isEmpty { try await send() }
            throw error
        }
        if !pending.isEmpty || state == nil { try await send() }
        guard let state else { throw ServiceError(.internal, "no upload state") }
        return .noContent(
            .init(headers: .init(tusResumable: Self.tusVersion, uploadOffset: state.offset, xImageId: state.image?.id)))
    }
}
